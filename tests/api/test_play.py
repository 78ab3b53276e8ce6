"""Playing in the town over HTTP: a guest or the owner steps in, acts only for their own,
walks to a tile, sees who is near, talks (residents answer from memory; people in their own
words; a resident may speak first), and leaves; forks and deletes. The made-up harbour town
of tests/quay.py, so nothing here is the Ville's (sharing: test_play_sharing.py)."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from llm.models import ModelCall
from memories.models import Memory, MemoryKind
from runtime import engine
from runtime.models import Player
from tests.api import error_of, fields_of
from tests.quay import (
    CHANDLER,
    FAR,
    MENDER,
    NET_LOFT,
    WORLD,
    join,
    play_url,
    quay_simulation,
    share,
)
from world.models import Agent, Event, Simulation


@pytest.fixture
def quay(user: User) -> Simulation:
    return quay_simulation(user)


# --- playing ---------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_guest_acts_only_for_their_own_newcomer(
    api: APIClient, other_api: APIClient, quay: Simulation
) -> None:
    share(api, quay, share="invited", guests=["bob"])
    api.post(
        play_url(quay, f"residents/{MENDER}/control/"), {"user_controlled": True}, format="json"
    )
    assert join(other_api, quay).status_code == 201
    events = Event.objects.filter(simulation=quay).count()
    mine = play_url(quay, "residents/Wren Holloway/")
    theirs = play_url(quay, f"residents/{MENDER}/")
    for response in (
        other_api.post(f"{theirs}go/", {"tile": [8, 2]}, format="json"),
        other_api.post(f"{theirs}say/", {"to": "Wren Holloway", "text": "hi"}, format="json"),
        other_api.get(f"{theirs}sight/"),
        other_api.delete(play_url(quay, f"players/{MENDER}/")),
        other_api.post(play_url(quay, "players/"), {"resident": FAR}, format="json"),
    ):
        assert response.status_code == 403, response.content
        assert "yours" in error_of(response)["detail"] or "owner" in error_of(response)["detail"]
    assert Event.objects.filter(simulation=quay).count() == events
    # Their own they may; the owner may act for anyone, the guest's newcomer included.
    assert other_api.post(f"{mine}go/", {"tile": [6, 2]}, format="json").status_code == 200
    assert api.post(f"{mine}go/", {"tile": [7, 2]}, format="json").status_code == 200
    # The owner cannot take over a resident someone else plays.
    taken = api.post(play_url(quay, "players/"), {"resident": "Wren Holloway"}, format="json")
    assert taken.status_code == 409, taken.content
    assert "bob" in error_of(taken)["detail"]


@pytest.mark.django_db(transaction=True)  # runs ticks, which commit
def test_walking_to_a_clicked_tile_follows_a_path_there(api: APIClient, quay: Simulation) -> None:
    assert join(api, quay, tile=[20, 1]).status_code == 201
    # Down the corridor into the chandlery: a walk that turns corners.
    walked = api.post(
        play_url(quay, "residents/Wren Holloway/go/"), {"tile": [5, 6]}, format="json"
    )
    assert walked.status_code == 200, walked.content
    body = walked.json()
    assert body["action"] == "walking to the counter of Pell chandlery"
    assert body["path_length"] > 20
    engine.simulation_run_inline(simulation=quay, steps=walked.json()["path_length"] + 1)
    person = Agent.objects.get(simulation=quay, name="Wren Holloway")
    assert person.tile == (5, 6) and not person.path


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"tile": [0, 0]}, "tile"),  # a wall
        ({"tile": [400, 2]}, "tile"),  # off the map
        ({"tile": [5]}, "tile"),
        ({"tile": [5, "2"]}, "tile[1]"),
        ({"tile": [5, 2], "address": NET_LOFT}, None),
        ({}, None),
        ({"address": f"{WORLD}:Gull net lofts"}, "address"),
    ],
)
def test_a_bad_walk_is_a_400_and_moves_nobody(
    api: APIClient, quay: Simulation, body: dict[str, Any], field: str | None
) -> None:
    join(api, quay)
    events = Event.objects.filter(simulation=quay).count()
    response = api.post(play_url(quay, "residents/Wren Holloway/go/"), body, format="json")
    assert response.status_code == 400, response.content
    assert field in fields_of(response), fields_of(response)
    assert Event.objects.filter(simulation=quay).count() == events


@pytest.mark.django_db
def test_who_is_in_sight_is_who_say_can_reach(api: APIClient, quay: Simulation) -> None:
    join(api, quay, tile=[6, 2])
    sight = api.get(play_url(quay, "residents/Wren Holloway/sight/"))
    assert sight.status_code == 200, sight.content
    near = sight.json()
    # The mender three tiles off; the far one across the loft and the chandler in the
    # other room are not in sight.
    assert [(r["name"], r["distance"], r["person"]) for r in near] == [(MENDER, 3, False)]
    said = api.post(
        play_url(quay, "residents/Wren Holloway/say/"),
        {"to": FAR, "text": "Can you hear me over there?"},
        format="json",
    )
    assert said.status_code == 400 and "not in sight" in error_of(said)["detail"]


@pytest.mark.django_db
def test_a_guest_talks_and_the_resident_answers_from_what_it_holds(
    api: APIClient, other_api: APIClient, quay: Simulation
) -> None:
    share(api, quay, share="invited", guests=["bob"])
    # Something only the mender holds: the whisper becomes its thought.
    api.post(
        play_url(quay, f"residents/{MENDER}/whisper/"),
        {"statement": "the north jetty is closed for repairs until the spring tide"},
        format="json",
    )
    join(other_api, quay, tile=[5, 2])
    said = other_api.post(
        play_url(quay, "residents/Wren Holloway/say/"),
        {"to": MENDER, "text": "Is the north jetty open today?"},
        format="json",
    )
    assert said.status_code == 201, said.content
    lines = said.json()["lines"]
    assert [line["speaker"] for line in lines] == ["Wren Holloway", MENDER]
    assert "jetty" in lines[1]["text"].lower(), lines[1]
    for who in ("Wren Holloway", MENDER):
        kept = Memory.objects.filter(agent__name=who, kind=MemoryKind.CONVERSATION)
        assert any("north jetty" in m.description for m in kept), who
    # The owner watching sees it in the log as any conversation.
    held = [
        e
        for e in api.get(play_url(quay, "events/?kind=conversation.held")).json()["results"]
        if e["payload"]["participants"] == ["Wren Holloway", MENDER]
    ]
    assert len(held) == 1 and held[0]["payload"]["lines"] == lines


@pytest.mark.django_db(transaction=True)  # runs ticks, which commit
def test_leaving_as_a_newcomer_leaves_the_town_and_a_take_over_hands_back(
    api: APIClient, other_api: APIClient, quay: Simulation
) -> None:
    share(api, quay, share="invited", guests=["bob"])
    join(other_api, quay)
    taken = api.post(play_url(quay, "players/"), {"resident": CHANDLER}, format="json")
    assert taken.status_code == 201 and taken.json()["user_controlled"] is True
    engine.simulation_run_inline(simulation=quay, steps=2)

    left = other_api.delete(play_url(quay, "players/Wren Holloway/"))
    assert left.status_code == 200, left.content
    assert left.json()["left_step"] == 2
    back = api.delete(play_url(quay, f"players/{CHANDLER}/"))
    assert back.status_code == 200 and back.json()["user_controlled"] is False
    assert back.json()["left_step"] is None
    assert not Player.objects.filter(simulation=quay).exists()
    # Replay draws the newcomer only between its arrival and its leaving.
    replay = api.get(play_url(quay, "replay/?from_step=0&to_step=2")).json()
    wren = next(r for r in replay["residents"] if r["name"] == "Wren Holloway")
    assert (wren["arrived_step"], wren["left_step"]) == (0, 2)
    # Gone: the newcomer is no longer the guest's to act for, and nobody plays the
    # chandler now.
    assert other_api.delete(play_url(quay, "players/Wren Holloway/")).status_code == 403
    assert api.delete(play_url(quay, f"players/{CHANDLER}/")).status_code == 409


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"name": ""}, "name"),
        ({"name": "Wren/Holloway"}, "name"),
        ({"name": "Wren Holloway", "tile": [0, 0]}, "tile"),
        ({"name": "Wren Holloway", "tile": [5, 2], "address": NET_LOFT}, None),
        ({"resident": MENDER, "name": "Wren Holloway"}, "name"),
        ({"about": 7}, "about"),
        ({"name": MENDER.upper()}, "name"),
    ],
)
def test_a_bad_join_is_a_400_naming_the_field_and_nobody_arrives(
    api: APIClient, quay: Simulation, body: dict[str, Any], field: str | None
) -> None:
    body = {"tile": [5, 2], **body} if "resident" not in body and "tile" not in body else body
    response = api.post(play_url(quay, "players/"), body, format="json")
    assert response.status_code == 400, response.content
    assert field in fields_of(response), fields_of(response)
    assert Agent.objects.filter(simulation=quay).count() == 3
    assert not Player.objects.exists()


@pytest.mark.django_db(transaction=True)  # runs ticks, which commit
def test_a_resident_speaks_first_to_a_person_and_leaves_the_answer_to_them(
    api: APIClient, user: User
) -> None:
    """On the paper's cognition a resident may start a conversation with a person: its
    opening line only (the person's words are the person's), kept by both, and it waits."""
    quay = quay_simulation(user, cognition="paper")
    api.post(
        play_url(quay, f"residents/{MENDER}/whisper/"),
        {"statement": "I must invite Wren Holloway to the net-mending supper tonight"},
        format="json",
    )
    join(api, quay, tile=[4, 1])
    greeted = None
    for turn in range(30):
        engine.simulation_run_inline(simulation=quay, steps=1)
        greeted = Event.objects.filter(
            simulation=quay,
            kind="conversation.held",
            payload__participants__contains=["Wren Holloway"],
        ).first()
        if greeted is not None:
            break
        # Step away and back, so the mender sees the person anew.
        tile = [4, 1] if turn % 2 else [8, 3]
        api.post(play_url(quay, "residents/Wren Holloway/go/"), {"tile": tile}, format="json")
    assert greeted is not None, "nobody spoke to the person in 30 steps"
    lines = greeted.payload["lines"]
    assert [line["speaker"] for line in lines] == [greeted.agent]
    assert greeted.agent != "Wren Holloway"
    kept = Memory.objects.filter(agent__name="Wren Holloway", kind=MemoryKind.CONVERSATION)
    assert any(lines[0]["text"] in m.description for m in kept)
    speaker = Agent.objects.get(simulation=quay, name=greeted.agent)
    assert speaker.chatting_with == "Wren Holloway"
    # The person answers, and the resident answers back.
    answer = api.post(
        play_url(quay, "residents/Wren Holloway/say/"),
        {"to": greeted.agent, "text": "Thank you, I would like that."},
        format="json",
    )
    assert answer.status_code == 201, answer.content


@pytest.mark.django_db(transaction=True)  # a delete's transaction is durable
def test_a_fork_keeps_the_people_as_residents_and_a_delete_takes_the_players_along(
    api: APIClient, other_api: APIClient, quay: Simulation
) -> None:
    share(api, quay, share="anyone")
    assert join(other_api, quay).status_code == 201
    fork = api.post(play_url(quay, "fork/"), {"name": "the quay again"}, format="json")
    assert fork.status_code == 201, fork.content
    forked = Simulation.objects.get(pk=fork.json()["id"])
    # The fork is its owner's alone: the guest's newcomer is there, the owner's to play.
    assert forked.share == "off" and not Player.objects.filter(simulation=forked).exists()
    assert other_api.get(play_url(forked)).status_code == 404
    walked = api.post(
        play_url(forked, "residents/Wren Holloway/go/"), {"tile": [6, 2]}, format="json"
    )
    assert walked.status_code == 200, walked.content
    assert api.delete(play_url(quay)).status_code == 204
    assert not Player.objects.exists()
    assert not Simulation.objects.filter(pk=quay.pk).exists()


@pytest.mark.django_db
def test_two_people_talk_each_in_their_own_words(
    api: APIClient, other_api: APIClient, quay: Simulation
) -> None:
    """A person spoken to is not answered for: the line is the speaker's only, both keep
    it, and the other answers with their own `say`."""
    share(api, quay, share="anyone")
    join(other_api, quay, tile=[6, 2])
    join(api, quay, name="Idris Vale", tile=[8, 2])
    lines_before = ModelCall.objects.filter(simulation=quay, task="converse_line").count()
    said = other_api.post(
        play_url(quay, "residents/Wren Holloway/say/"),
        {"to": "Idris Vale", "text": "Have you crossed on the evening ferry before?"},
        format="json",
    )
    assert said.status_code == 201, said.content
    assert [line["speaker"] for line in said.json()["lines"]] == ["Wren Holloway"]
    answered = api.post(
        play_url(quay, "residents/Idris Vale/say/"),
        {"to": "Wren Holloway", "text": "Twice; the swell past the breakwater is rough."},
        format="json",
    )
    assert [line["text"] for line in answered.json()["lines"]] == [
        "Twice; the swell past the breakwater is rough."
    ]
    for who in ("Wren Holloway", "Idris Vale"):
        kept = Memory.objects.filter(agent__name=who, kind=MemoryKind.CONVERSATION)
        assert {m.description for m in kept} >= {
            'Wren Holloway said to Idris Vale: "Have you crossed on the evening ferry before?"',
            'Idris Vale said to Wren Holloway: "Twice; the swell past the breakwater is rough."',
        }
    # No line was asked of a model for either person.
    lines_asked = ModelCall.objects.filter(simulation=quay, task="converse_line").count()
    assert lines_asked == lines_before
