"""The replay endpoint: residents' tiles and actions per step, computed from the log."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from runtime import engine
from runtime.replay import MAX_REPLAY_STEPS
from world.models import Agent, Simulation

from . import create, error_of

State = dict[str, tuple[int, int, str, str, str]]


def _live(simulation: Simulation) -> State:
    """What the projection holds now: tile, action and emoji per resident."""
    return {
        a.name: (a.tile_x, a.tile_y, a.action, a.action_emoji, a.chatting_with)
        for a in Agent.objects.filter(simulation=simulation)
    }


def _play(body: dict[str, Any], until: int) -> State:
    """The state at step `until`, applying the replay's changes as a client does."""
    names = [r["name"] for r in body["residents"]]
    tiles, actions, emojis = list(body["tiles"]), list(body["actions"]), list(body["emojis"])
    partners = list(body["partners"])
    for frame in body["steps"]:
        if frame["step"] > until:
            break
        moved = frame["moved"]
        for k in range(0, len(moved), 3):
            tiles[2 * moved[k]], tiles[2 * moved[k] + 1] = moved[k + 1], moved[k + 2]
        for index, action, emoji, partner in frame["acted"]:
            actions[index], emojis[index], partners[index] = action, emoji, partner
    return {
        name: (
            tiles[2 * i],
            tiles[2 * i + 1],
            actions[i],
            emojis[i],
            names[partners[i]] if partners[i] >= 0 else "",
        )
        for i, name in enumerate(names)
    }


@pytest.mark.django_db(transaction=True)
def test_replay_gives_every_steps_positions_and_actions(api: APIClient) -> None:
    created = create(api)
    simulation = Simulation.objects.get(pk=created["id"])
    at_start = _live(simulation)
    engine.simulation_run_inline(simulation=simulation, steps=40)
    at_40 = _live(simulation)
    engine.simulation_run_inline(simulation=simulation, steps=40)
    at_80 = _live(simulation)
    assert at_80 != at_40 != at_start, "nobody moved or acted: the test shows nothing"

    url = f"/api/simulations/{simulation.pk}/replay/"
    whole = api.get(url, {"from_step": 0, "to_step": 80})
    assert whole.status_code == 200, whole.content
    body = whole.json()
    assert [r["name"] for r in body["residents"]] == sorted(at_start)
    assert body["residents"][0]["initials"] == "IR"  # Isabella Rodriguez
    assert [s["step"] for s in body["steps"]] == list(range(1, 81))
    assert body["last_step"] == 80
    assert _play(body, 0) == at_start
    assert _play(body, 40) == at_40
    assert _play(body, 80) == at_80
    assert any(frame["moved"] for frame in body["steps"])

    # A range starting later begins with the whole state at its first step.
    later = api.get(url, {"from_step": 40}).json()
    assert later["from_step"] == 40 and later["to_step"] == 80
    assert _play(later, 40) == at_40
    assert _play(later, 80) == at_80


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"from_step": 3, "to_step": 2}, "to_step must be between"),
        ({"from_step": 0, "to_step": 6}, "to_step must be between"),
        ({"from_step": 7}, "from_step must be between"),
        ({"from_step": -1}, "from_step"),
        ({"from_step": "x"}, "from_step"),
    ],
)
def test_bad_ranges_get_400(api: APIClient, query: dict[str, Any], message: str) -> None:
    from . import advance

    simulation = create(api)
    advance(simulation["id"], 5)
    response = api.get(f"/api/simulations/{simulation['id']}/replay/", query)
    assert response.status_code == 400, response.content
    assert message in error_of(response)["detail"]


@pytest.mark.django_db
def test_a_range_longer_than_the_limit_gets_400(api: APIClient) -> None:
    simulation = create(api)
    Simulation.objects.filter(pk=simulation["id"]).update(step=MAX_REPLAY_STEPS + 10)
    url = f"/api/simulations/{simulation['id']}/replay/"
    too_long = api.get(url, {"from_step": 0, "to_step": MAX_REPLAY_STEPS + 1})
    assert too_long.status_code == 400
    assert f"at most {MAX_REPLAY_STEPS} steps" in error_of(too_long)["detail"]
    assert api.get(url, {"from_step": 0, "to_step": 3}).status_code == 200


@pytest.mark.django_db
def test_replay_is_the_owners_only(api: APIClient, other_api: APIClient) -> None:
    simulation = create(api)
    url = f"/api/simulations/{simulation['id']}/replay/"
    assert other_api.get(url).status_code == 404
    assert APIClient().get(url).status_code == 401
    assert api.get(url).status_code == 200


@pytest.mark.django_db
def test_the_replay_says_when_each_resident_came_and_left(api: APIClient) -> None:
    """A viewer draws a resident only from its arrival until the step it left at."""
    from runtime.controls.stepping_in import newcomer_create
    from world.eventlog import EventDraft, events_append
    from world.events import SIMULATION_STEPPED

    from . import advance

    created = create(api)
    simulation = advance(created["id"], 3)
    url = f"/api/simulations/{created['id']}"
    assert api.delete(f"{url}/residents/Maria Lopez/").status_code == 200
    newcomer_create(simulation=simulation, name="Ada Quill", tile=(72, 14))
    stepped = EventDraft(kind=SIMULATION_STEPPED, payload={"step": 4})
    events_append(simulation=simulation, drafts=[stepped], step=4)

    body = api.get(f"{url}/replay/", {"from_step": 0, "to_step": 4}).json()
    came = {r["name"]: (r["arrived_step"], r["left_step"]) for r in body["residents"]}
    assert came == {
        "Ada Quill": (3, None),
        "Isabella Rodriguez": (0, None),
        "Klaus Mueller": (0, None),
        "Maria Lopez": (0, 3),
    }
    # A later range says the same: the steps are the log's, not the range's.
    later = api.get(f"{url}/replay/", {"from_step": 4, "to_step": 4}).json()
    assert {r["name"]: r["left_step"] for r in later["residents"]}["Maria Lopez"] == 3
