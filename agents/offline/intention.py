"""The offline policy of the `intention` task: what a thought of the resident's own (its
inner voice, a whisper) commits it to (a rule, not a model).

A thought in the first person (the inner voice's) that means to do something (judged by
meaning against `examples/thoughts`) and names a time or a place is a commitment: at the
time it names (soon, for "today" or a place alone), at the known place it names, or else
where the resident's plan has it then, for an hour. A happening the thought tells of with
its own window (a party it hosts, from 5pm to 7pm) keeps that window (`news.intention`);
one with a time alone ("at 4pm") is an intention like any other.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from agents.offline.asked_time import moment_meant
from agents.offline.meaning import example_set, judge
from agents.offline.news import intention as happening_meant
from agents.offline.news import windowed
from agents.offline.places import places_of
from agents.offline.policy import lines_of
from llm.tasks import Inputs

THOUGHTS = "thoughts"
MINUTES = 60  # an intention without an end takes an hour
_SOON = 10  # "now" is the next ten minutes: a commitment starts after the step it is made
# How an intention opens ("I should", "I'll", "Let me"): the plan item is what follows.
_OPENER = re.compile(
    r"^(?:(?:today|tonight|tomorrow|later),?\s+)?(?:I(?:'ll|'d better| will| shall| should| must"
    r"| need to| want to| have to| ought to| plan to| mean to| am going to|'m going to| am"
    r"|'m)|let me)\s+",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Meant:
    """A commitment: what, where ("sector:arena"), from when to when."""

    what: str
    place: str
    start: datetime
    end: datetime


def _place_named(thought: str, places: dict[str, list[str]]) -> str:
    """The known place the thought names, longest name first: "sector:arena"."""
    lowered = thought.lower()
    named = [(sector, arena) for sector, arenas in places.items() for arena in arenas]
    named += [(sector, "") for sector in places]
    found = [
        (sector, arena)
        for sector, arena in named
        if (arena or sector).lower() in lowered and len(arena or sector) > 3
    ]
    if not found:
        return ""
    sector, arena = max(found, key=lambda p: (len(p[1] or p[0]), bool(p[1])))
    return f"{sector}:{arena or (places[sector][0] if places[sector] else '')}"


_PLAN_LINE = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d)-(\d\d:\d\d): .*?, at (.+) of (.+)$")


# The inner voice speaks in the first person ("I should", "let me"), or writes itself a
# memo, a short head and a colon ("Don't forget: the library at 6pm"); "Ada plans to be
# ..." is a memory of a plan, not an intention to add to it.
_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I'll|I've|I'd|me|my|let's)\b", re.IGNORECASE)
_MEMO = re.compile(r"^[^:.;!?]{1,30}:\s")


def _place_planned(plan: object, moment: datetime) -> str:
    """Where the plan has the resident at `moment` ("sector:arena"), "" if nowhere."""
    for line in lines_of(plan):
        found = _PLAN_LINE.match(line.strip())
        if not found:
            continue
        start = datetime.strptime(found[1], "%Y-%m-%d %H:%M")
        end = datetime.combine(start.date(), datetime.strptime(found[2], "%H:%M").time())
        if end <= start:
            end += timedelta(days=1)
        if start <= moment < end:
            return f"{found[4]}:{found[3]}"
    return ""


def intention(inputs: Inputs) -> Meant | None:
    """The commitment the thought makes (see the module's docstring), or None."""
    thought = str(inputs["thought"]).strip()
    now = datetime.fromisoformat(f"{inputs['date']}T{inputs['time']}")
    happening = happening_meant(inputs) if windowed(thought) else None
    if happening is not None and happening.day is not None:
        day = datetime.combine(happening.day, datetime.min.time())
        return Meant(
            f"going to the {happening.what}",
            happening.place,
            day + timedelta(minutes=happening.start),
            day + timedelta(minutes=happening.end),
        )
    if not (_FIRST_PERSON.search(thought) or _MEMO.match(thought)):
        return None  # a statement of others, or of itself by name: no inner voice
    if judge([thought], example_set(THOUGHTS))[0].label != "intention":
        return None
    moment = moment_meant(thought, now)
    place = _place_named(thought, places_of(str(inputs["places"])))
    if moment is None and not place:
        return None  # a wish with no time or place: nothing to plan yet
    soon = now + timedelta(minutes=_SOON - now.minute % _SOON)
    start = soon if moment is None or moment < soon else moment
    place = place or _place_planned(inputs.get("plan", ""), start)
    if not place:
        return None
    what = _OPENER.sub("", thought).rstrip(".!")
    return Meant(what[:1].lower() + what[1:], place, start, start + timedelta(minutes=MINUTES))
