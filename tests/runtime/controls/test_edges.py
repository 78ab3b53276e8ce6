"""Edges a probe found in what a user sends: names that print as a resident's, a newcomer
walled in, a list of 10,000 repeats, and guessing passwords or tokens without end."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from evaluations.models import Evaluation
from tests.api import create, error_of, fields_of
from world.models import Agent, Location, LocationKind, Simulation
from world.paths import Unreachable, distance_field, location_anchor, path_to_location, walkable
from world.selectors import town_cached

NAME = "Zora Quill"


def _newcomer(api: APIClient, simulation: dict[str, Any], **fields: Any) -> Any:
    arenas = Location.objects.filter(town_id=simulation["town"], kind=LocationKind.ARENA)
    places = arenas.order_by("pk").values_list("address", flat=True)
    body = {"name": NAME, "address": places.first(), **fields}
    body = {key: value for key, value in body.items() if value is not None}
    return api.post(f"/api/simulations/{simulation['id']}/residents/", body, format="json")


@pytest.mark.django_db
@pytest.mark.parametrize(
    "name",
    [
        "Zora\u200b Quill",  # a zero-width space
        "Zora Quill\u202e",  # a right-to-left override
        "Z\u043era Quill",  # a Cyrillic o
        "\u0417ora Quill",  # a Cyrillic Ze, which prints as a 3
    ],
)
def test_a_name_with_invisible_or_mixed_script_letters_is_400_naming_the_field(
    api: APIClient, name: str
) -> None:
    simulation = create(api)
    assert _newcomer(api, simulation).status_code == 201
    agents = Agent.objects.count()
    response = _newcomer(api, simulation, name=name)
    assert response.status_code == 400, response.content
    assert "name" in fields_of(response)
    assert Agent.objects.count() == agents


@pytest.mark.django_db
def test_names_alike_but_for_look_alike_letters_or_compatibility_forms_are_one_name(
    api: APIClient,
) -> None:
    simulation = create(api)
    assert _newcomer(api, simulation, name="Pax Ocho").status_code == 201
    agents = Agent.objects.count()
    # Wholly Cyrillic look-alikes (one script, so only the skeleton tells), full-width Latin.
    for name in ("\u0420\u0430\u0445 \u041e\u0441\u04bb\u043e", "\uff30\uff41\uff58 Ocho"):
        response = _newcomer(api, simulation, name=name)
        assert response.status_code == 400, (name, response.content)
        assert "already lives" in error_of(response)["detail"]
    assert Agent.objects.count() == agents
    # Names in other scripts are welcome.
    for name in ("\u0416\u0435\u043d\u044f \u0418\u0432\u0430\u043d\u043e\u0432", "山田 はなこ"):
        assert _newcomer(api, simulation, name=name).status_code == 201, name


def _walled_in_tile(simulation: dict[str, Any]) -> tuple[int, int]:
    """A walkable tile of the town from which no arena can be walked to."""
    town = town_cached(pk=Simulation.objects.get(pk=simulation["id"]).town_id)
    arenas = list(
        Location.objects.filter(town=town, kind=LocationKind.ARENA).values_list(
            "address", flat=True
        )
    )

    def reaches_an_arena(tile: tuple[int, int]) -> bool:
        for address in arenas:
            try:
                path_to_location(town=town, start=tile, address=address)
                return True
            except Unreachable:
                continue
        return False

    distance = distance_field(town=town, targets=[location_anchor(town=town, address=arenas[0])])
    for index, steps in enumerate(distance):
        tile = (index % town.width, index // town.width)
        if steps < 0 and walkable(town=town, tile=tile) and not reaches_an_arena(tile):
            return tile
    raise AssertionError("the town has no walled-in walkable tile")


@pytest.mark.django_db
def test_a_newcomer_on_a_walled_in_tile_is_400_naming_the_field(api: APIClient) -> None:
    simulation = create(api)
    tile = _walled_in_tile(simulation)
    response = _newcomer(api, simulation, address=None, tile=list(tile))
    assert response.status_code == 400, response.content
    assert "tile" in fields_of(response)
    assert not Agent.objects.filter(name=NAME).exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("kinds", ["diffusion"] * 10_000),
        ("conditions", ["full", "full"]),
        ("facts", ["a kite festival is on Sunday"] * 2),
    ],
)
def test_an_evaluation_list_with_repeats_is_400_naming_the_field(
    api: APIClient, field: str, value: list[str]
) -> None:
    simulation = create(api)
    body = {"kinds": ["diffusion"], field: value}
    url = f"/api/simulations/{simulation['id']}/evaluations/"
    response = api.post(url, body, format="json")
    assert response.status_code == 400, response.content[:300]
    named = fields_of(response)  # the field, or the repeated item ("facts[1]")
    assert any(key == field or (key or "").startswith(f"{field}[") for key in named), named
    assert not Evaluation.objects.exists()


@pytest.mark.django_db
def test_a_newcomer_with_repeated_memories_is_400(api: APIClient) -> None:
    simulation = create(api)
    response = _newcomer(api, simulation, memories=["I like kites"] * 3)
    assert response.status_code == 400
    assert "memories" in fields_of(response)


@pytest.mark.django_db
def test_failed_logins_are_throttled_per_client_with_retry_after(user: User, settings: Any) -> None:
    settings.SMALLVILLE_THROTTLE_AUTH_FAILURES = "3/minute"
    guesser, neighbour = Client(REMOTE_ADDR="10.9.8.7"), Client(REMOTE_ADDR="10.9.8.6")
    wrong = {"username": user.username, "password": "not-the-password"}
    for _ in range(3):
        assert guesser.post("/accounts/login/", wrong).status_code == 200  # the form again
    refused = guesser.post("/accounts/login/", wrong)
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    # Past the limit the right password is refused too (else guessing would go on)...
    right = {"username": user.username, "password": "alice-password-1"}
    assert guesser.post("/accounts/login/", right).status_code == 429
    # ...from that client only.
    assert neighbour.post("/accounts/login/", right).status_code == 302


@pytest.mark.django_db
def test_wrong_api_tokens_are_throttled_per_client_with_retry_after(
    user: User, settings: Any
) -> None:
    settings.SMALLVILLE_THROTTLE_AUTH_FAILURES = "3/minute"
    guesser = APIClient(REMOTE_ADDR="10.9.8.5")
    guesser.credentials(HTTP_AUTHORIZATION="Token " + "0" * 40)
    for _ in range(3):
        assert guesser.get("/api/simulations/").status_code == 401
    refused = guesser.get("/api/simulations/")
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert error_of(refused)["code"] == "throttled"
    # A right token from that address is served (tokens cannot be guessed; a NAT's other
    # clients keep the API).
    right = APIClient(REMOTE_ADDR="10.9.8.5")
    right.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    assert right.get("/api/simulations/").status_code == 200
