"""The offline actions of an hour block and the alarms residents answer. No database."""

from __future__ import annotations

import random

import pytest

from agents.offline.actions import actions_for, respond_to
from agents.tasks.decompose import DECOMPOSITION_MAX

CAFE = "refrigerator, cafe customer seating, cooking area, kitchen sink, behind the cafe counter"
BEDROOM = "bed, desk, refrigerator, closet, shelf"


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize(
    ("block", "minutes", "objects"),
    [
        ("having lunch at Hobbs Cafe", 60, CAFE),
        ("working at Hobbs Cafe", 45, CAFE),
        ("waking up and having breakfast", 60, BEDROOM),
        ("working on projects at home", 17, BEDROOM),
        ("working at Hobbs Cafe", 240, CAFE),
    ],
)
def test_actions_fill_the_block_exactly_in_steps_of_five_minutes_or_more(
    block: str, minutes: int, objects: str, seed: int
) -> None:
    inputs = {"block": block, "duration_minutes": minutes, "objects": objects}
    actions = actions_for(inputs, random.Random(seed), max_actions=DECOMPOSITION_MAX)
    assert sum(m for _, m, _, _, _ in actions) == minutes
    # A long block fits the decomposition's schema: one bad count once failed a run.
    assert len(actions) <= DECOMPOSITION_MAX
    assert all(m >= 5 for _, m, _, _, _ in actions)
    assert {item for _, _, item, _, _ in actions} <= {o.strip() for o in objects.split(",")}


def test_a_resident_does_only_what_the_arena_has_objects_for() -> None:
    inputs = {"block": "waking up and having breakfast", "duration_minutes": 60, "objects": BEDROOM}
    descriptions = [
        d for d, _, _, _, _ in actions_for(inputs, random.Random(1), max_actions=DECOMPOSITION_MAX)
    ]
    # No sink, shower or bathroom in this room: no teeth brushing and no shower.
    assert descriptions[:4] == [
        "waking up and stretching",
        "getting dressed",
        "making breakfast",
        "eating breakfast",
    ]
    assert not {"brushing teeth", "taking a shower"} & set(descriptions)


MORNING_ROOMS = [BEDROOM, "bed, closet, bathroom sink, shower, kitchen, table", "bed"]


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("minutes", [20, 60, 90])
@pytest.mark.parametrize("objects", MORNING_ROOMS)
def test_the_morning_starts_with_waking_up_and_never_wakes_again(
    seed: int, minutes: int, objects: str
) -> None:
    block = "waking up and having breakfast, then relaxing at home"
    inputs = {"block": block, "duration_minutes": minutes, "objects": objects}
    descriptions = [
        d
        for d, _, _, _, _ in actions_for(inputs, random.Random(seed), max_actions=DECOMPOSITION_MAX)
    ]
    assert descriptions[0] == "waking up and stretching"
    # Once: the routine is not started over after breakfast (which read as waking up again).
    assert descriptions.count("waking up and stretching") == 1


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize(
    "block",
    [
        "reading and relaxing at home",
        "relaxing at home",
        "staying up at home",
        "working on projects at home",
        "having dinner at home",
        "waking up and having breakfast, then relaxing at home",
    ],
)
def test_only_waking_up_uses_the_bed_which_takes_one_at_a_time(block: str, seed: int) -> None:
    # Reading on the bed made a couple queue for it ("waiting to use the bed" at 08:10).
    inputs = {"block": block, "duration_minutes": 60, "objects": BEDROOM}
    for description, _, item, _, _ in actions_for(
        inputs, random.Random(seed), max_actions=DECOMPOSITION_MAX
    ):
        assert item != "bed" or description == "waking up and stretching"


STORE = "supply store product shelf, behind the supply store counter, supply store counter"


def test_a_shopkeeper_serves_at_the_store_and_a_cafe_guest_is_served() -> None:
    work = {"block": "working at Harvey Oak Supply Store", "duration_minutes": 60, "objects": STORE}
    shop = {
        d for d, _, _, _, _ in actions_for(work, random.Random(1), max_actions=DECOMPOSITION_MAX)
    }
    assert "serving customers at the counter" in shop and "reading a book" not in shop
    guest = {"block": "relaxing at Hobbs Cafe", "duration_minutes": 60, "objects": CAFE}
    visit = {
        d for d, _, _, _, _ in actions_for(guest, random.Random(1), max_actions=DECOMPOSITION_MAX)
    }
    assert visit and not any("serving" in d or "washing" in d for d in visit)


def test_the_cafe_owner_serves_at_the_counter_with_the_counter_busy() -> None:
    inputs = {"block": "working at Hobbs Cafe", "duration_minutes": 30, "objects": CAFE}
    first = actions_for(inputs, random.Random(1), max_actions=DECOMPOSITION_MAX)[0]
    assert first[0] == "serving customers at the counter"
    assert first[2:] == ("behind the cafe counter", "☕", "taking orders")


def test_an_arena_without_fitting_objects_still_fills_the_block() -> None:
    inputs = {"block": "Gardening", "duration_minutes": 20, "objects": "dorm garden"}
    actions = actions_for(inputs, random.Random(1), max_actions=DECOMPOSITION_MAX)
    assert {(d, item) for d, _, item, _, _ in actions} == {("gardening", "dorm garden")}
    empty = actions_for({**inputs, "objects": ""}, random.Random(1), max_actions=DECOMPOSITION_MAX)
    assert sum(m for _, m, _, _, _ in empty) == 20


@pytest.mark.parametrize(
    ("state", "action"),
    [
        ("on fire", "putting out the fire at the stove"),
        ("Burning", "putting out the fire at the stove"),
        ("leaking water", "stopping the stove from leaking"),
        ("broken", "fixing the stove"),
        ("left on", "turning off the stove"),
    ],
)
def test_an_alarming_state_makes_a_resident_respond(state: str, action: str) -> None:
    assert respond_to("stove", state) == action


@pytest.mark.parametrize("state", ["in use", "idle", "cooking breakfast", "being cleaned"])
def test_an_ordinary_state_does_not(state: str) -> None:
    assert respond_to("stove", state) is None
