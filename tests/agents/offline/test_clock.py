"""agents/offline/clock: time expressions read by a parser, in phrasings made up here."""

from __future__ import annotations

from datetime import date

import pytest

from agents.offline.clock import times_in

MONDAY = date(2031, 3, 3)


def _one(text: str) -> tuple[int | None, int | None]:
    """The one clock time or range in the text ("nights" beside it is a part of the day)."""
    found = [w for w in times_in(text, today=MONDAY) if not w.part]
    assert len(found) == 1, found
    return found[0].start, found[0].end


@pytest.mark.parametrize(
    ("text", "minute"),
    [
        ("Quenby gets up at 4:30 to light the kilns.", 4 * 60 + 30),
        ("wakes at half past five", 5 * 60 + 30),
        ("Dov is out of bed at 7.30am", 7 * 60 + 30),
        ("turns in at 21:30 most nights", 21 * 60 + 30),
        ("the ferry leaves at a quarter past seven", 7 * 60 + 15),
        ("closes the forge at 6pm", 18 * 60),
    ],
)
def test_a_clock_time_is_read_in_its_many_forms(text: str, minute: int) -> None:
    assert _one(text)[0] == minute


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("Ilse keeps a flower stall from 7 to 11", 7 * 60, 11 * 60),
        ("the kiosk is open 7-11am", 7 * 60, 11 * 60),
        ("Farrow mends nets from 2 to 6pm", 14 * 60, 18 * 60),
        ("guards the granary nights, 10pm to 6am", 22 * 60, 6 * 60),
        ("on the ward from 22:00 to 06:00", 22 * 60, 6 * 60),
    ],
)
def test_a_range_keeps_both_ends_and_may_cross_midnight(text: str, start: int, end: int) -> None:
    assert _one(text) == (start, end)
    assert [w.overnight for w in times_in(text) if not w.part] == [end < start]


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("Tamsin locks the boathouse at 12 a.m.", 0, None),
        ("Brannoc sleeps from 12:30am", 30, None),
        ("Yselde turns in at half past twelve at night", 30, None),
        ("the night porter Cadoc is in bed by four o'clock at night", None, 4 * 60),
        ("Wenna rakes the kiln at 2 at night", 2 * 60, None),
        ("Hollis closes the tavern at eleven at night", 23 * 60, None),
        ("Jory's hours are 2 p.m. to ten at night", 14 * 60, 22 * 60),
        ("Merryn minds the signal box from 12 pm until 12 am", 12 * 60, 0),
        ("Piran works from 10pm to 12:30 a.m.", 22 * 60, 30),
    ],
)
def test_midnight_and_the_small_hours_said_at_night_are_before_dawn(
    text: str, start: int | None, end: int | None
) -> None:
    """ "12 a.m." is midnight and "four at night" is 04:00 (the parser reads both as
    afternoon times); each end of a range by its own words."""
    assert _one(text) == (start, end)


def test_an_hour_without_am_or_pm_is_marked_bare_for_the_caller_to_place() -> None:
    bare = times_in("in bed by ten")[0]
    assert (bare.end, bare.bare) == (10 * 60, True)  # "by ten": ends then, morning or night
    assert not times_in("in bed by 10pm")[0].bare


@pytest.mark.parametrize(
    ("text", "part"),
    [
        ("Brannock fishes at dawn", "dawn"),
        ("Yves works mornings at the dairy", "morning"),
        ("reads in the late evening", "lateevening"),
        ("naps in the afternoon", "afternoon"),
        ("patrols the walls at night", "night"),
    ],
)
def test_parts_of_the_day_are_read_with_their_hours(text: str, part: str) -> None:
    (found,) = times_in(text)
    assert found.part == part
    assert found.start is not None and found.end is not None


@pytest.mark.parametrize(
    ("text", "day", "minute"),
    [
        ("the regatta is tomorrow at 5pm", date(2031, 3, 4), 17 * 60),
        ("a lecture on Thursday at 3pm in the great hall", date(2031, 3, 6), 15 * 60),
        ("the auction is next Tuesday", date(2031, 3, 11), None),
        ("on Friday the mill is closed", date(2031, 3, 7), None),
        ("don't miss Thursday's sheep sale", date(2031, 3, 6), None),
    ],
)
def test_named_days_resolve_against_today(text: str, day: date, minute: int | None) -> None:
    (found,) = times_in(text, today=MONDAY)
    assert (found.day, found.start) == (day, minute)


@pytest.mark.parametrize(
    "text",
    [
        "Hesper has 2 dogs and 3 cats",
        "the 3 children of the miller",
        "Room 12 of the Copper Kettle",
        "she is 28 years old",
        "he has lived by the weir for 30 years",
        "The light was right and he might go",
        "Don't let the kettle boil dry",  # "Don" of "Don't" is no (German) Thursday
        "Mon't and Fri'll are no days",
    ],
)
def test_numbers_and_words_that_are_no_time_are_not_read_as_times(text: str) -> None:
    assert times_in(text) == []


@pytest.mark.parametrize(
    ("text", "minute"),
    [
        ("Oona opens the museum at 7.00", 7 * 60),  # "sun" of "museum" is no Sunday
        ("Perrin sweeps the gymnasium at 7:15", 7 * 60 + 15),
        ("Bede smokes salmon at the weir from 6", 6 * 60),
        ("the lemon grove opens at 9:30", 9 * 60 + 30),
        ("Cato guards the frigate at 10", 10 * 60),
    ],
)
def test_a_day_read_inside_a_word_does_not_hide_the_time_after_it(text: str, minute: int) -> None:
    (found,) = times_in(text)
    assert (found.day, found.start) == (None, minute)


def test_each_expression_is_found_where_it_stands() -> None:
    text = "Maud opens the chandlery at 8, and closes it at 10 at night"
    found = times_in(text)
    assert [(w.start, text[w.at : w.at + len(w.text)]) for w in found] == [
        (8 * 60, found[0].text),
        (22 * 60, found[1].text),
    ]
    assert "8" in found[0].text and "10" in found[1].text
