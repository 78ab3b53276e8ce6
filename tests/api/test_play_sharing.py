"""Sharing a simulation over HTTP: the owner decides who may watch it and join (off by
default, the users invited, or anyone logged in); a guest watches and steps in and may do
nothing else; who may act for which resident; the admin of it. The made-up harbour town of
tests/quay.py, so nothing here is the Ville's."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from runtime.controls.players import may_control, player_join
from runtime.models import Player
from tests.api import error_of, fields_of
from tests.factories import api_client_for
from tests.quay import MENDER, NET_LOFT, WORLD, join, play_url, quay_simulation, share
from world.models import Agent, Event, Simulation


@pytest.fixture
def quay(user: User) -> Simulation:
    return quay_simulation(user)


@pytest.fixture
def third_api(db: None) -> APIClient:
    return api_client_for(User.objects.create_user(username="carol", password="carol-password-1"))


# --- who may watch and join ------------------------------------------------------------------


WATCHED = ["", "events/", "residents/", "conversations/", "players/", "objects/", "replay/"]


@pytest.mark.django_db
def test_a_simulation_is_not_shared_until_its_owner_says_so(
    api: APIClient, other_api: APIClient, quay: Simulation
) -> None:
    assert api.get(play_url(quay, "share/")).json() == {"share": "off", "guests": []}
    for rest in WATCHED:
        assert other_api.get(play_url(quay, rest)).status_code == 404, rest
    response = join(other_api, quay)
    assert response.status_code == 404
    assert not Player.objects.exists()


@pytest.mark.django_db
def test_an_invited_guest_watches_and_steps_in_and_nobody_else_does(
    api: APIClient, other_api: APIClient, third_api: APIClient, quay: Simulation
) -> None:
    shared = share(api, quay, share="invited", guests=["bob"])
    assert shared.status_code == 200, shared.content
    assert shared.json() == {"share": "invited", "guests": ["bob"]}
    for rest in WATCHED:
        assert other_api.get(play_url(quay, rest)).status_code == 200, rest
        assert third_api.get(play_url(quay, rest)).status_code == 404, rest
    detail = other_api.get(play_url(quay)).json()
    assert detail["role"] == "guest" and detail["share"] == "invited"
    assert api.get(play_url(quay)).json()["role"] == "owner"
    town = other_api.get(f"/api/towns/{quay.town_id}/map/")
    assert town.status_code == 200 and town.json()["world_name"] == WORLD
    assert third_api.get(f"/api/towns/{quay.town_id}/map/").status_code == 404
    # The guest's list is their own simulations only; the shared one is not in it.
    assert other_api.get("/api/simulations/").json()["results"] == []

    joined = join(other_api, quay)
    assert joined.status_code == 201, joined.content
    assert joined.json()["user_controlled"] is True and joined.json()["tile"] == [5, 2]
    players = other_api.get(play_url(quay, "players/")).json()
    assert [(p["user"], p["resident"], p["newcomer"], p["you"]) for p in players] == [
        ("bob", "Wren Holloway", True, True)
    ]
    assert api.get(play_url(quay, "players/")).json()[0]["you"] is False
    assert join(third_api, quay, name="Idris Vale").status_code == 404
    # A guest plays one person at a time; the owner may bring in several.
    again = join(other_api, quay, name="Sable Wick", tile=[7, 2])
    assert again.status_code == 409 and "Wren Holloway" in error_of(again)["detail"]
    for name, tile in (("Idris Vale", [8, 2]), ("Sable Wick", [9, 2])):
        assert join(api, quay, name=name, tile=tile).status_code == 201


@pytest.mark.django_db
def test_sharing_with_anyone_lets_every_logged_in_userjoin(
    api: APIClient, other_api: APIClient, third_api: APIClient, quay: Simulation
) -> None:
    assert share(api, quay, share="anyone").status_code == 200
    assert join(other_api, quay).status_code == 201
    assert join(third_api, quay, name="Idris Vale", tile=[7, 3]).status_code == 201
    assert APIClient().get(play_url(quay)).status_code in (401, 403)
    # Off again: they can no longer watch; those in the town stay until they leave.
    assert share(api, quay, share="off").status_code == 200
    assert other_api.get(play_url(quay, "events/")).status_code == 404
    assert Player.objects.filter(simulation=quay).count() == 2


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"share": "everyone"}, "share"),
        ({"share": "invited", "guests": ["nobody-by-this-name"]}, "guests"),
        ({"share": "invited", "guests": ["alice"]}, "guests"),
        ({"share": "invited", "guests": "bob"}, "guests"),
        ({"share": "invited", "guests": ["bob", "bob"]}, "guests"),
        ({"share": True}, "share"),
        ({"share": "off", "colour": "teal"}, "colour"),
    ],
)
def test_a_bad_share_is_a_400_naming_the_field_and_changes_nothing(
    api: APIClient, other_user: User, quay: Simulation, body: dict[str, Any], field: str
) -> None:
    response = share(api, quay, **body)
    assert response.status_code == 400, response.content
    error_of(response)
    assert field in fields_of(response), fields_of(response)
    quay.refresh_from_db()
    assert quay.share == "off" and not quay.guests.exists()


@pytest.mark.django_db
def test_a_guest_cannot_share_run_or_change_the_town(
    api: APIClient, other_api: APIClient, quay: Simulation
) -> None:
    share(api, quay, share="anyone")
    events = Event.objects.filter(simulation=quay).count()
    mender = f"residents/{MENDER}/"
    refused = [
        other_api.put(play_url(quay, "share/"), {"share": "off"}, format="json"),
        other_api.post(play_url(quay, "run/"), {"steps": 3}, format="json"),
        other_api.post(play_url(quay, "pause/"), {}, format="json"),
        other_api.post(play_url(quay, "fork/"), {"name": "mine now"}, format="json"),
        other_api.delete(play_url(quay)),
        other_api.delete(play_url(quay, mender)),
        other_api.post(
            play_url(quay, f"{mender}control/"), {"user_controlled": True}, format="json"
        ),
        other_api.post(play_url(quay, f"{mender}whisper/"), {"statement": "x"}, format="json"),
        other_api.post(play_url(quay, f"{mender}interview/"), {"question": "who?"}, format="json"),
        other_api.post(
            play_url(quay, "residents/"), {"name": "Sly Cove", "tile": [4, 2]}, format="json"
        ),
        other_api.put(
            play_url(quay, "objects/"), {"address": NET_LOFT, "state": "burning"}, format="json"
        ),
        other_api.get(play_url(quay, f"{mender}memories/")),
        other_api.get(play_url(quay, "model-calls/")),
    ]
    assert [r.status_code for r in refused] == [404] * len(refused), [
        (r.status_code, r.content[:120]) for r in refused
    ]
    assert Event.objects.filter(simulation=quay).count() == events


@pytest.mark.django_db
def test_staff_sees_who_plays_whom_and_who_may_join_in_the_admin(
    staff: Client, api: APIClient, other_api: APIClient, quay: Simulation
) -> None:
    share(api, quay, share="invited", guests=["bob"])
    join(other_api, quay)
    players = staff.get(reverse("admin:runtime_player_changelist"))
    assert players.status_code == 200
    assert b"Wren Holloway" in players.content and b"bob" in players.content
    player = Player.objects.get()
    page = staff.get(reverse("admin:runtime_player_change", args=[player.pk]))
    assert page.status_code == 200 and b"Wren Holloway" in page.content
    assert staff.get(reverse("admin:runtime_player_delete", args=[player.pk])).status_code == 403
    shared = staff.get(reverse("admin:world_simulation_changelist") + "?share=invited")
    assert shared.status_code == 200 and quay.name.encode() in shared.content
    detail = staff.get(reverse("admin:world_simulation_change", args=[quay.pk]))
    assert detail.status_code == 200 and b'name="guests"' in detail.content


@pytest.mark.django_db
def test_the_owner_may_act_for_anyone_and_a_guest_for_their_own_only(
    user: User, other_user: User, quay: Simulation
) -> None:
    quay.share = "anyone"
    quay.save()
    newcomer = player_join(simulation=quay, user=other_user, name="Tamsin Reed", tile=(9, 2))
    mender = Agent.objects.get(simulation=quay, name=MENDER)
    assert may_control(user=user, simulation=quay, agent=mender)
    assert may_control(user=user, simulation=quay, agent=newcomer)
    assert may_control(user=other_user, simulation=quay, agent=newcomer)
    assert not may_control(user=other_user, simulation=quay, agent=mender)
    assert newcomer.user_controlled and newcomer.currently == ""
