"""The offline day: wake and bed times from the lifestyle, work from the requirement, a
plan that covers the day, hour blocks at places the resident knows. No database."""

from __future__ import annotations

import itertools
import random

import pytest

from agents.cognition.offline import (
    day_plan,
    hhmm,
    hourly_blocks,
    place_for,
    routine,
    summary_text,
    times_in,
)
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
RESIDENTS = pytest.mark.parametrize(
    "inputs", [ISABELLA, KLAUS, MARIA], ids=["isabella", "klaus", "maria"]
)


def _plan_lines(inputs: Inputs) -> list[str]:
    return [f"{hhmm(s)} ({m} min): {d}" for d, s, m in day_plan(inputs, random.Random(1))]


def test_times_come_from_the_lifestyle_text() -> None:
    assert times_in(str(KLAUS["lifestyle"])) == {"bed": 23 * 60, "wake": 7 * 60, "dinner": 17 * 60}
    assert times_in("She wakes up at 6:30am and is asleep by 10pm.") == {
        "wake": 6 * 60 + 30,
        "bed": 22 * 60,
    }
    assert times_in("No times at all.") == {}


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
    assert "studying at Oak Hill College" in descriptions


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
