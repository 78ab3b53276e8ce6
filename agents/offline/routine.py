"""The resident's day read from its own identity, for the offline stand-in: wake and bed
times, working hours and workplace from the lifestyle, the daily requirement and the
summary (learned traits, what it is doing currently).

Each clause of those texts is judged by meaning (`agents/offline/examples/day_roles.json`:
work, study, wake, sleep, meal, errand, leisure, about), with its time expressions read by
the parser (`clock.times_in`) and taken out first, so "keeps a stall from 7 to 11" is
judged as work and its hours as its hours. The workplace is a place the resident knows
named in a clause of work (a sector, or an arena of one: "the library of the college"),
else the known place nearest in meaning to its occupation ("the innkeeper": the inn), never
a place it only eats, shops or walks at.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from agents.offline.clock import DAY, When, times_in
from agents.offline.meaning import Judgment, example_set, judge, similarity
from llm.tasks import Inputs
from world.addresses import Address

WORK_ROLES = ("work", "study")
AWAY_ROLES = ("meal", "errand", "leisure")
# How far above the other known places (on average, each by its nearest arena), and above
# home, the place nearest in meaning to an occupation must be to be taken as its
# workplace (cosines of the memory stream's embeddings): a baker's bakery is; a poet's
# nearest place is not.
ABOVE_OTHERS = 0.025
ABOVE_HOME = 0.02
_SENTENCE = re.compile(r"(?<=[.;!?])\s+")
_COMMA = re.compile(r"(?<=,)\s+")


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
    leisure_place: str = ""  # a sector it spends free time at, named in a clause of leisure

    @property
    def night_work(self) -> bool:
        return self.work_end < self.work_start


@dataclass(frozen=True)
class Clause:
    text: str
    role: str
    times: tuple[When, ...]
    meaning: str  # the text judged: without its times and the resident's name


def routine(inputs: Inputs) -> Routine:
    """The resident's routine (identity texts repeat day after day: cached by them)."""
    return _routine(
        str(inputs["lifestyle"]),
        str(inputs["daily_plan_requirement"]),
        str(inputs["summary"]),
        str(inputs["living_area"]),
        str(inputs["places"]),
        str(inputs.get("agent_name", "")),
    )


@lru_cache(maxsize=256)
def _routine(
    lifestyle: str, requirement: str, summary: str, living_area: str, places: str, name: str
) -> Routine:
    clauses = clauses_of([requirement, lifestyle, summary], name=name)
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
    sector, arena = workplace_of(clauses, living_area, places)
    known = _known_away(living_area, places)
    meal = _place_of(clauses, ("meal",), known)
    leisure = _place_of(clauses, ("leisure",), known)
    return Routine(wake, bed, dinner, start, end, sector, arena, studies, meal, leisure)


def clauses_of(texts: Sequence[str], *, name: str = "") -> list[Clause]:
    """The clauses of identity texts, each judged by its meaning without its times."""
    pieces: list[_Piece] = []
    for text in texts:
        if text.strip().lower() in ("", "none"):
            continue
        for sentence in _SENTENCE.split(text):
            pieces += _pieces(sentence, name)
    distinct = list(dict.fromkeys(piece.meaning for piece in pieces))
    roles = dict(zip(distinct, judge(distinct, example_set("day_roles")), strict=True))
    return [
        Clause(
            piece.text,
            _role(roles[piece.meaning], piece.times),
            tuple(w for w in piece.times if w.day is None),
            piece.meaning,
        )
        for piece in pieces
    ]


REST = ("wake", "sleep")
_NEAR_TIE = 0.25  # wake and sleep scores this close: the clause's time decides


def _role(judgment: Judgment, times: Sequence[When]) -> str:
    """A clause's role by meaning; between waking and going to sleep, which the meaning of
    a few words about bed may not tell apart, by its time when the two are near: a time
    from 03:00 to noon is a waking, one from 18:00 to 03:00 a bedtime."""
    label = judgment.label
    if label not in REST:
        return label
    wake, sleep = judgment.scores.get("wake", 0.0), judgment.scores.get("sleep", 0.0)
    moments = [w.start if w.start is not None else w.end for w in times if not w.is_range]
    moment = next((m for m in moments if m is not None), None)
    if abs(wake - sleep) >= _NEAR_TIE or moment is None or (times and times[0].bare):
        return label
    if 3 * 60 <= moment < 12 * 60:
        return "wake"
    if moment >= 18 * 60 or moment < 3 * 60:
        return "sleep"
    return label


@dataclass(frozen=True)
class _Piece:
    text: str
    times: tuple[When, ...]
    meaning: str  # what is judged: the clause's head, without times or the name


def _pieces(sentence: str, name: str) -> list[_Piece]:
    """A sentence's clauses (parted at commas and between two times) with their times; a
    piece of a few words, or one that begins with where ("in the cafe"), is part of the
    clause before it ("works nights, 10pm to 6am"), judged as that clause's head."""
    pieces: list[_Piece] = []
    for part in _COMMA.split(sentence):
        for text in _one_time_each(part):
            times = tuple(times_in(text))
            meaning = _judged_text(text, times, name)
            words = len(re.findall(r"[A-Za-z']+", meaning))
            adjunct = re.match(r"(in|at|on|by|near|inside|behind)\b", text, re.IGNORECASE)
            if pieces and (words < (2 if times else 3) or adjunct):
                head = pieces[-1]
                pieces[-1] = _Piece(f"{head.text} {text}", head.times + times, head.meaning)
            else:
                pieces.append(_Piece(text, times, meaning))
    return pieces


def _one_time_each(text: str) -> list[str]:
    """A clause of two times parted at the joining word between them: "rises at 4:30 |
    and goes to sleep around 9pm" (not "The Rose and Crown Pub at 5pm": one time)."""
    times = times_in(text)
    for first, second in itertools.pairwise(times):
        between = text[first.at + len(first.text) : second.at]
        join = re.search(r"\s(?:and|but|then)\s|;", between)
        if join:
            cut = first.at + len(first.text) + join.start()
            return [text[:cut].strip(), *_one_time_each(text[cut:].strip())]
    return [text]


def _without_times(text: str, times: Sequence[When]) -> str:
    for when in times:
        text = text.replace(when.text, " ")
    return text


def _judged_text(text: str, times: Sequence[When], name: str) -> str:
    """The clause as judged: its times and the resident's name out (they say nothing of
    what the clause is about)."""
    text = _without_times(text, times)
    for part in name.split():
        text = re.sub(rf"\b{re.escape(part)}\b", " ", text)
    return " ".join(text.split()).strip(" ,.;") or text.strip()


def _sleep_times(clauses: Sequence[Clause]) -> tuple[int | None, int | None]:
    wake: int | None = None
    bed: int | None = None
    # A time the resident wakes at before one it wakes by ("until 2pm").
    for when in sorted(_times_of(clauses, "wake"), key=lambda w: w.start is None):
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


def _loose(text: str) -> str:
    """Names as persona texts write them: no case, no plural s, no leading "the"."""
    return re.sub(r"^the\s+", "", re.sub(r"s\b", "", text.lower().strip()))


def _named(name: str, text: str) -> bool:
    loose = _loose(name)
    return bool(loose) and re.search(rf"(?<!\w){re.escape(loose)}(?!\w)", _loose(text)) is not None


def _known_away(living_area: str, places_text: str) -> dict[str, list[str]]:
    """The sectors the resident knows, with their arenas, but its home."""
    home = Address.parse(living_area).sector
    return {sector: arenas for sector, arenas in places_of(places_text).items() if sector != home}


def _place_of(clauses: Sequence[Clause], roles: Sequence[str], places: dict[str, list[str]]) -> str:
    """The first known sector named in a clause of one of these roles, or ""."""
    for clause in clauses:
        if clause.role in roles:
            found = _place_named(clause.text, places)
            if found is not None:
                return found[0]
    return ""


def workplace_of(clauses: Sequence[Clause], living_area: str, places_text: str) -> tuple[str, str]:
    """(sector, arena) of work: named in a clause of work, else nearest its meaning."""
    home = Address.parse(living_area).sector
    places = _known_away(living_area, places_text)
    working = [c for c in clauses if c.role in WORK_ROLES]
    # A clause that states the hours of work names its place before one that does not;
    # another clause may name the room of it.
    named = [_place_named(c.text, places) for c in sorted(working, key=lambda c: not c.times)]
    found = [place for place in named if place is not None]
    if found:
        sector = found[0][0]
        arena = next((arena for s, arena in found if s == sector and arena), "")
        return sector, arena
    away = {
        sector
        for clause in clauses
        if clause.role in AWAY_ROLES
        for sector in places
        if _named(sector, clause.text)
    }
    return _place_meant(working, places, away, home) if working else ("", "")


def _place_named(text: str, places: dict[str, list[str]]) -> tuple[str, str] | None:
    # Longest names first: "Quillon College" before a sector called "College".
    for sector in sorted(places, key=len, reverse=True):
        if _named(sector, text):
            arena = next((a for a in places[sector] if _named(a, text)), "")
            return sector, arena
    return None


def _place_meant(
    working: Sequence[Clause], places: dict[str, list[str]], away: set[str], home: str
) -> tuple[str, str]:
    """The known place nearest in meaning to the occupation, if it stands out from the
    other places (each place by its nearest arena) and from home."""
    candidates = [(s, a) for s, arenas in places.items() if s not in away for a in arenas]
    if len({sector for sector, _ in candidates}) < 2:
        return "", ""
    texts = [clause.meaning for clause in working[:4]]
    names = [f"{arena} of {sector}" for sector, arena in candidates] + [f"a room at {home}"]
    row = similarity(texts, names).max(axis=0)
    best = int(np.argmax(row[:-1]))
    sector = candidates[best][0]
    others: dict[str, float] = {}
    for (other, _), value in zip(candidates, row[:-1], strict=True):
        if other != sector:
            others[other] = max(others.get(other, -1.0), float(value))
    above_others = row[best] - float(np.mean(list(others.values())))
    if above_others < ABOVE_OTHERS or row[best] - row[-1] < ABOVE_HOME:
        return "", ""
    return candidates[best]


def places_of(text: str) -> dict[str, list[str]]:
    """'sector: arena, arena' lines -> {sector: [arenas]}."""
    places: dict[str, list[str]] = {}
    for line in text.splitlines():
        sector, _, arenas = line.partition(":")
        if sector.strip():
            places[sector.strip()] = [a.strip() for a in arenas.split(",") if a.strip()]
    return places
