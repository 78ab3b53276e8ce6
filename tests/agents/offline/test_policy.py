"""The offline day: wake and bed times from the lifestyle, work from the requirement, a
plan that covers the day, hour blocks at places the resident knows. The identity is read
by meaning (the memory stream's embeddings, cached in the database)."""

from __future__ import annotations

import difflib
import itertools
import random

import pytest

from agents.offline.actions import actions_for
from agents.offline.policy import (
    day_plan,
    hhmm,
    hourly_blocks,
    place_for,
    summary_text,
)
from agents.offline.routine import routine
from agents.tasks.decompose import DECOMPOSITION_MAX
from llm.tasks import Inputs

PLACES = "\n".join(
    [
        "Hobbs Cafe: cafe",
        "Isabella Rodriguez's apartment: main room",
        "Dorm for Oak Hill College: Klaus Mueller's room, Maria Lopez's room, common room",
        "Oak Hill College: library, classroom",
        "The Rose and Crown Pub: pub",
        "Johnson Park: park",
    ]
)
ISABELLA: Inputs = {
    "lifestyle": "Isabella Rodriguez goes to bed around 11pm, awakes up around 6am.",
    "daily_plan_requirement": "Isabella Rodriguez opens Hobbs Cafe at 8am everyday, and stands "
    "at the counter until 8pm, at which point she closes the cafe.",
    "summary": "Isabella Rodriguez is a cafe owner of Hobbs Cafe.",
    "living_area": "the Ville:Isabella Rodriguez's apartment:main room",
    "places": PLACES,
}
KLAUS: Inputs = {
    "lifestyle": "Klaus Mueller goes to bed around 11pm, awakes up around 7am, eats dinner "
    "around 5pm.",
    "daily_plan_requirement": "Klaus Mueller goes to the library at Oak Hill College early in "
    "the morning, spends his days writing, and eats at Hobbs Cafe.",
    "summary": "Klaus Mueller is a student at Oak Hill College.",
    "living_area": "the Ville:Dorm for Oak Hill College:Klaus Mueller's room",
    "places": PLACES,
}
MARIA: Inputs = {
    "lifestyle": "Maria Lopez goes to bed around 2am, awakes up around 10am, eats dinner around "
    "7pm.",
    "daily_plan_requirement": "Maria Lopez spends at least 6 hours a day Twitch streaming.",
    "summary": "Maria Lopez is a student at Oak Hill College.",
    "living_area": "the Ville:Dorm for Oak Hill College:Maria Lopez's room",
    "places": PLACES,
}
pytestmark = pytest.mark.django_db
RESIDENTS = pytest.mark.parametrize(
    "inputs", [ISABELLA, KLAUS, MARIA], ids=["isabella", "klaus", "maria"]
)


def _plan_lines(inputs: Inputs) -> list[str]:
    return [f"{hhmm(s)} ({m} min): {d}" for d, s, m in day_plan(inputs, random.Random(1))]


def test_a_routine_wakes_at_the_lifestyle_time_and_works_the_required_hours() -> None:
    isabella = routine(ISABELLA)
    assert (isabella.wake, isabella.bed) == (6 * 60, 23 * 60)
    assert (isabella.work_start, isabella.work_end) == (8 * 60, 20 * 60)
    assert isabella.workplace == "Hobbs Cafe"


def test_a_resident_does_not_commute_to_the_sector_it_lives_in() -> None:
    # Klaus lives in "Dorm for Oak Hill College" and works at "Oak Hill College".
    assert routine(KLAUS).workplace == "Oak Hill College"
    painter = {
        **ISABELLA,
        "daily_plan_requirement": "Isabella Rodriguez paints in Isabella Rodriguez's apartment.",
        "summary": "Isabella Rodriguez is a painter.",
    }
    assert routine(painter).workplace == ""  # she works at home


@RESIDENTS
def test_a_day_plan_covers_the_day_without_gaps(inputs: Inputs) -> None:
    plan = day_plan(inputs, random.Random(7))
    assert plan[0][1] == 0
    assert all(minutes > 0 for _, _, minutes in plan)
    for (_, start, minutes), (_, following, _) in itertools.pairwise(plan):
        assert start + minutes == following
    assert plan[-1][1] + plan[-1][2] == 24 * 60


def test_the_day_starts_asleep_until_the_wake_time() -> None:
    assert day_plan(ISABELLA, random.Random(1))[:2] == [
        ("sleeping", 0, 6 * 60),
        ("waking up and having breakfast, then relaxing at home", 6 * 60, 120),
    ]


def test_a_night_owl_stays_up_past_midnight_then_sleeps() -> None:
    plan = day_plan(MARIA, random.Random(1))
    assert plan[:3] == [
        ("staying up at home", 0, 2 * 60),
        ("sleeping", 2 * 60, 8 * 60),
        ("waking up and having breakfast", 10 * 60, 60),
    ]
    assert plan[-1][0].startswith("relaxing at")  # until midnight: no bedtime item


def test_a_student_studies_at_college() -> None:
    descriptions = [d for d, _, _ in day_plan(KLAUS, random.Random(1))]
    assert "studying at the library of Oak Hill College" in descriptions  # the room it names


@RESIDENTS
def test_hour_blocks_cover_the_plan_in_hours_but_sleep_stays_whole(inputs: Inputs) -> None:
    blocks = hourly_blocks({**inputs, "day_plan": _plan_lines(inputs)}, random.Random(1))
    plan = day_plan(inputs, random.Random(1))
    assert blocks[0][1] == 0
    for block, following in itertools.pairwise(blocks):
        assert block[1] + block[2] == following[1]
    assert blocks[-1][1] + blocks[-1][2] == 24 * 60
    for description, _, minutes, _, _ in blocks:
        assert minutes <= 60 or "sleeping" in description
    sleep = next(item for item in plan if item[0] == "sleeping")
    assert (sleep[0], sleep[1], sleep[2]) in [(d, s, m) for d, s, m, _, _ in blocks]


def test_going_to_bed_is_not_cut_into_hours() -> None:
    lines = [
        "00:00 (420 min): sleeping",
        "07:00 (900 min): working",
        "22:00 (120 min): going to bed",
    ]
    blocks = hourly_blocks({**ISABELLA, "day_plan": lines}, random.Random(1))
    assert [(d, m) for d, _, m, _, _ in blocks if d != "working"] == [
        ("sleeping", 420),
        ("going to bed", 120),
    ]
    assert len([b for b in blocks if b[0] == "working"]) == 15


def test_hour_blocks_after_the_morning_routine_read_at_home() -> None:
    blocks = hourly_blocks({**ISABELLA, "day_plan": _plan_lines(ISABELLA)}, random.Random(1))
    assert [d for d, s, _, _, _ in blocks if 6 * 60 <= s < 8 * 60] == [
        "waking up and having breakfast, then relaxing at home",
        "reading and relaxing at home",
    ]


def test_an_activity_goes_to_the_sector_it_names_and_the_arena_that_fits_it() -> None:
    assert place_for("studying at Oak Hill College", ISABELLA) == ("Oak Hill College", "library")
    assert place_for("working at Hobbs Cafe", ISABELLA) == ("Hobbs Cafe", "cafe")
    assert place_for("relaxing at The Rose and Crown Pub", ISABELLA) == (
        "The Rose and Crown Pub",
        "pub",
    )


def test_an_activity_naming_no_place_happens_at_home() -> None:
    home = ("Isabella Rodriguez's apartment", "main room")
    assert place_for("having dinner at home", ISABELLA) == home
    # Without an arena in the living area: the first place it knows.
    assert place_for("having dinner at home", {**ISABELLA, "living_area": "the Ville"}) == (
        "Hobbs Cafe",
        "cafe",
    )
    assert place_for("napping", {**ISABELLA, "living_area": "the Ville:Hobbs Cafe"}) == (
        "Hobbs Cafe",
        "cafe",
    )


def test_the_summary_description_comes_from_the_identity() -> None:
    identity = "\n".join(
        [
            "Name: Isabella Rodriguez",
            "Age: 34",
            "Innate traits: friendly, outgoing",
            "Learned traits: Isabella runs Hobbs Cafe.",
            "Currently: Isabella is planning a party.",
        ]
    )
    assert summary_text({"agent_name": "Isabella Rodriguez", "agent_identity": identity}) == (
        "Isabella Rodriguez is 34 years old. Isabella Rodriguez is friendly, outgoing. "
        "Isabella runs Hobbs Cafe. Isabella is planning a party."
    )


# --- a household at home in the morning ----------------------------------------------------

# What the Lins know of their house in the base Ville: Eddy's spatial memory lacks his own
# bedroom, so the nearest-named arena to it was his parents' (and their one bed).
LIN_HOUSE = {
    "bathroom": "toilet, shower, bathroom sink",
    "common room": "shelf, common room table",
    "Mei and John Lin's bedroom": "closet, desk, bed",
    "Eddy Lin's bedroom": "bed, desk, closet",
    "garden": "house garden",
}
LIN_TOWN = (
    "Oak Hill College: library, classroom\nHobbs Cafe: cafe\nThe Willows Market and Pharmacy: store"
)


def _lin(name: str, wake: str, room: str, requirement: str, knows_own_room: bool) -> Inputs:
    rooms = [r for r in LIN_HOUSE if knows_own_room or r != room]
    return {
        "agent_name": name,
        "lifestyle": f"{name} goes to bed around 11pm, awakes up around {wake}, eats dinner "
        "around 5pm.",
        "daily_plan_requirement": requirement,
        "summary": f"{name} lives with the Lin family.",
        "living_area": f"the Ville:Lin family's house:{room}",
        "places": f"Lin family's house: {', '.join(rooms)}\n{LIN_TOWN}",
    }


MEI = _lin(
    "Mei Lin",
    "7am",
    "Mei and John Lin's bedroom",
    "Mei Lin goes to Oak Hill college to teach starting 10 am, teaches until 2pm.",
    True,
)
JOHN = _lin(
    "John Lin",
    "6am",
    "Mei and John Lin's bedroom",
    "John Lin goes to the Willow Market and Pharmacy around 9am to open the pharmacy counter. "
    "He stands behind the counter until 5pm and returns home.",
    True,
)
EDDY = _lin("Eddy Lin", "7amam", "Eddy Lin's bedroom", "Eddy Lin goes to Oak Hill College.", False)


def _nearest(known: list[str], arena: str) -> str:
    """The planner's mapping of an arena the resident does not know (KnownPlaces)."""
    return arena if arena in known else difflib.get_close_matches(arena, known, 1, 0.0)[0]


def _bed_minutes(inputs: Inputs, seed: int) -> set[tuple[str, int]]:
    """(arena, minute) at which the resident uses a bed awake between 06:00 and 10:00."""
    lines = _plan_lines(inputs)
    known = [r for r in LIN_HOUSE if r in str(inputs["places"])]
    used: set[tuple[str, int]] = set()
    for description, start, minutes, sector, arena in hourly_blocks(
        {**inputs, "day_plan": lines}, random.Random(seed)
    ):
        if not 6 * 60 <= start < 10 * 60 or sector != "Lin family's house":
            continue
        arena = _nearest(known, arena)
        block = {"block": description, "duration_minutes": minutes, "objects": LIN_HOUSE[arena]}
        at = start
        for _, length, item, _, _ in actions_for(
            block, random.Random(seed + start), max_actions=DECOMPOSITION_MAX
        ):
            if item == "bed":
                used |= {(arena, m) for m in range(at, at + length)}
            at += length
    return used


@pytest.mark.parametrize("seed", range(10))
def test_a_household_does_not_queue_for_a_bed_in_the_morning(seed: int) -> None:
    # Mei and Eddy both wake at 7 and Eddy woke in his parents' bed: one waited at 07:31.
    uses = [_bed_minutes(resident, seed) for resident in (MEI, JOHN, EDDY)]
    for mine, theirs in itertools.combinations(uses, 2):
        assert not mine & theirs


def test_a_resident_who_does_not_know_its_own_room_stays_in_a_shared_room() -> None:
    assert place_for("waking up and having breakfast", EDDY) == (
        "Lin family's house",
        "common room",
    )
    assert place_for("waking up and having breakfast", MEI) == (
        "Lin family's house",
        "Mei and John Lin's bedroom",
    )


def test_a_workplace_named_loosely_is_still_where_the_resident_works() -> None:
    # "Oak Hill college", "the Willow Market": not home all day for a letter's difference.
    assert routine(MEI).workplace == "Oak Hill College"
    assert routine(JOHN).workplace == "The Willows Market and Pharmacy"


def test_a_shopkeeper_who_opens_at_eight_is_at_work_from_eight() -> None:
    tom = {
        **JOHN,
        "daily_plan_requirement": "Tom Moreno opens The Willow Market and Pharmacy at 8am, "
        "stands behind the grocery counter, and goes home afterwards.",
    }
    shift = routine(tom)
    assert (shift.workplace, shift.work_start, shift.work_end) == (
        "The Willows Market and Pharmacy",
        8 * 60,
        16 * 60,
    )
