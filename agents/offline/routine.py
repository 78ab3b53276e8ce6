"""The resident's day read from its own identity, for the offline stand-in: wake and bed
times, working hours and workplace from the lifestyle, the daily requirement and the
summary (learned traits, what it is doing currently).

The texts' clauses, each with its role and its times, are `clauses.py`'s; the places
(workplace, where it eats and spends evenings) are `places.py`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from agents.offline.clauses import REST, WORK_ROLES, Clause, clauses_of, common_words
from agents.offline.clock import DAY, When
from agents.offline.meaning import example_set, judge
from agents.offline.places import (
    clause_naming,
    known_away,
    place_named,
    place_of,
    places_of,
    workplace_of,
)
from llm.inputs import identity_fields
from llm.tasks import Inputs
from world.addresses import Address


@dataclass(frozen=True)
class Routine:
    wake: int
    bed: int
    dinner: int
    work_start: int
    work_end: int  # before work_start: a night's work, into the next morning
    workplace: str  # a sector, or "" to work at home
    work_arena: str = ""  # the arena of the workplace its identity names, if one
    studies: bool = False  # its work is study
    meal_place: str = ""  # a sector it eats at, named in a clause of meals
    meal_time: str = "any"  # when it eats there: "midday", "evening", "morning" or "any"
    leisure_place: str = ""  # a sector it spends free time at, named in a clause of leisure

    @property
    def night_work(self) -> bool:
        return self.work_end < self.work_start


def routine(inputs: Inputs) -> Routine:
    """The resident's routine (identity texts repeat day after day: cached by them). Read
    from its identity's fields where the inputs hold them (innate traits say nothing of its
    day; what it is doing currently is no workplace unless it names one), else from its
    summary's sentences."""
    fields = identity_fields(str(inputs.get("identity", "")))
    learned, currently = fields.get("Learned traits", ""), fields.get("Currently", "")
    return _routine(
        str(inputs["lifestyle"]),
        str(inputs["daily_plan_requirement"]),
        "" if fields else str(inputs["summary"]),
        str(inputs["living_area"]),
        str(inputs["places"]),
        str(inputs.get("agent_name", "")),
        learned,
        currently,
    )


@lru_cache(maxsize=256)
def _routine(
    lifestyle: str,
    requirement: str,
    summary: str,
    living_area: str,
    places: str,
    name: str,
    learned: str,
    currently: str,
) -> Routine:
    home = Address.parse(living_area).sector
    away = known_away(living_area, places)
    texts = [requirement, lifestyle, summary, learned]
    clauses = [_shift_at(c, away) for c in clauses_of(texts, name=name)]
    clauses += [_pastime(c, away) for c in clauses_of([currently], name=name)]
    wake, bed = _sleep_times(clauses)
    working = [c for c in clauses if c.role in WORK_ROLES]
    studies = bool(working) and working[0].role == "study"
    hours = _work_hours(working, wake if wake is not None else 7 * 60)
    start, end = hours or ((10 * 60, 16 * 60) if studies else (9 * 60, 17 * 60))
    if end < start:  # a night's work: asleep after it unless the identity says otherwise
        bed = bed if bed is not None else (end + 60) % DAY
        wake = wake if wake is not None else min(bed + 8 * 60, start - 60)
    wake = 7 * 60 if wake is None else wake
    bed = 23 * 60 if bed is None else bed
    dinner = _dinner(clauses)
    if hours is None or end >= start:
        latest = 22 * 60 if bed < wake else bed - 60
        if hours is None:  # no hours stated: from an hour after waking until dinner
            start, end = max(start, wake + 60), max(end, dinner)
        end = max(min(end, latest), start + 60)
    sector, arena = workplace_of(clauses, home, away, places_of(places).get(home, []))
    meal, meal_time = _meal_place(clauses, away)
    leisure = place_of(clauses, ("leisure",), away)
    return Routine(wake, bed, dinner, start, end, sector, arena, studies, meal, meal_time, leisure)


def _meal_place(clauses: Sequence[Clause], away: dict[str, list[str]]) -> tuple[str, str]:
    """The sector a clause of meals names, and the meal's time of day by its meaning
    ("has lunch at ...": midday; "likes the soup at ...": any)."""
    found = clause_naming(clauses, ("meal",), away)
    if found is None:
        return "", "any"
    sector, clause = found
    meaning = common_words(clause.meaning, lead=True)
    return sector, judge([meaning], example_set("meal_times"))[0].label


def _pastime(clause: Clause, away: dict[str, list[str]]) -> Clause:
    """What a resident is doing these days ("is restoring a boat", "is learning the
    accordion") is no occupation: work or study only at a known place it names."""
    if clause.role in WORK_ROLES and place_named(clause.text, away) is None:
        return replace(clause, role="about")
    return _shift_at(clause, away)


def _shift_at(clause: Clause, away: dict[str, list[str]]) -> Clause:
    """One sleeps at home, and an errand or a meal does not take hours: three hours or
    more of rest, an errand, a meal or no activity said at a place away from home
    ("nights, 11pm to 7am, at the inn", "from 8 to 4 at the market") are a shift there."""
    spans = [
        (w.end - w.start) % DAY for w in clause.times if w.start is not None and w.end is not None
    ]
    shift = clause.role in (*REST, "about", "meal", "errand") and any(s >= 180 for s in spans)
    if shift and place_named(clause.text, away) is not None:
        return replace(clause, role="work")
    return clause


def _sleep_times(clauses: Sequence[Clause]) -> tuple[int | None, int | None]:
    wake: int | None = None
    bed: int | None = None
    # A time the resident wakes at before one it wakes by ("until 2pm").
    # A clock time before a part of the day ("rises before dawn, at 4").
    for when in sorted(_times_of(clauses, "wake"), key=lambda w: (w.start is None, bool(w.part))):
        wake = when.start if when.start is not None else when.end
        break
    for when in _times_of(clauses, "sleep"):
        if when.start is None and when.end is not None and _bedtime(when):
            bed = bed if bed is not None else _evening(when.end) if when.bare else when.end
            continue
        if when.is_range or when.start is None:
            wake = wake if wake is not None else when.end
        if bed is None and when.start is not None:
            bed = _evening(when.start) if when.bare else when.start
    return wake, bed


def _bedtime(when: When) -> bool:
    """An end said of sleep is the bedtime when said as a time to be asleep by ("in bed by
    ten") or when it is at night ("stays up until 2am"); else the waking ("sleeps until
    11am")."""
    assert when.end is not None
    if when.bare:
        return when.by
    return not 5 * 60 <= when.end < 15 * 60


def _times_of(clauses: Sequence[Clause], role: str) -> list[When]:
    return [when for clause in clauses if clause.role == role for when in clause.times]


def _evening(minute: int) -> int:
    """A bare hour of going to bed: "by ten" is 22:00, "at 12" midnight, "at 1" 01:00."""
    hour = minute // 60
    if hour == 12:
        return minute - 12 * 60
    return minute + 12 * 60 if 6 <= hour < 12 else minute


def _work_hours(clauses: Sequence[Clause], wake: int) -> tuple[int, int] | None:
    """From the first times stated in the clauses of work: a range, else a start and an
    end (bare hours in the half of the day after waking), else a part of the day."""
    starts: list[int] = []
    ends: list[int] = []
    parts: list[When] = []
    for when in [w for clause in clauses for w in clause.times]:
        if when.part and starts and when.start is not None and when.end is not None:
            if (when.end - when.start) % DAY <= 60:
                ends.append(when.start)  # "starts at 7 and finishes at noon"
        elif when.part:
            parts.append(when)
        elif when.start is not None and when.end is not None and not starts and not ends:
            end = when.end
            if when.bare and end <= when.start and end + 12 * 60 > when.start:
                end += 12 * 60  # "from 8 to 4"
            return _after_waking(when.start, when.bare, wake), end % DAY
        elif when.start is not None:
            starts.append(_after_waking(when.start, when.bare, wake))
        elif when.end is not None:
            ends.append(when.end)
    if not starts and parts:
        part = parts[0]  # "works nights", "early in the morning": in its hours, when awake
        assert part.start is not None and part.end is not None
        if (part.end - part.start) % DAY >= 4 * 60:
            return part.start, part.end
        starts.append(max(part.start, wake + 30))
    if not starts:
        return None
    start = starts[0]
    end = ends[0] if ends else starts[1] if len(starts) > 1 else start + 8 * 60
    if end <= start and end + 12 * 60 > start:
        end += 12 * 60  # "opens at 8 and closes at 6"
    return start, min(end, DAY - 1)


def _after_waking(minute: int, bare: bool, wake: int) -> int:
    return minute + 12 * 60 if bare and minute < wake and minute + 12 * 60 < DAY else minute


def _dinner(clauses: Sequence[Clause]) -> int:
    for clause in clauses:
        for when in clause.times:
            if clause.role == "meal" and when.start is not None:
                start = when.start + 12 * 60 if when.bare and when.start < 12 * 60 else when.start
                if start >= 15 * 60:
                    return start
    return 18 * 60
