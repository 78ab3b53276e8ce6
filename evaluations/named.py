"""What an evaluation measures by name: the facts whose diffusion it follows and the
events whose attendance it counts (Park et al. 2023, section 7: the party and the
candidacy were the paper's). They are parameters of an evaluation; when it names none, its
simulation's base gives them (a base's `measures`, agents.bases.format), and a base with
none measures nothing by name.

A fact is a clause ("the library closes early on Friday"), the resident it starts from when
known, and optionally `words`: groups of words or phrases; one sentence of a memory states
the fact when it holds an entry of each group at the start of a word ("run" holds for
"runs" and "running"). Without `words`, a sentence states it by the rule an offline
resident answers "Did you hear that <fact>?" by (`key_words.answers`), so what a memory
holds and what the resident says of it agree.

An event is what happens (a clause), its host, the town's sector it happens in and its
window of sim time; `words` says, as for a fact, which sentences are about it (without
them: "<host> is hosting <what> at <place>" by the offline rule).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property
from typing import Any

from pydantic import ValidationError

from agents.bases.format import FactSpec, Measures
from agents.bases.reference import UnknownBase
from agents.bases.selectors import base_resolve
from agents.offline.key_words import Asked, answers, asked_about, key_words
from world.fieldpath import loc_errors
from world.models import Location, LocationKind, Simulation

MIN_KEY_WORDS = 2

Words = tuple[tuple[str, ...], ...]


class MeasureError(ValueError):
    """A named fact or event that cannot be measured: `field` is its path in the request
    (`facts[1].words`, world.fieldpath), the message says why; `errors` has every bad
    part's messages by path (`field`'s first)."""

    def __init__(
        self, field: str, message: str, errors: dict[str, list[str]] | None = None
    ) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message
        self.errors = errors or {field: [message]}


def states(sentence: str, words: Words) -> bool:
    """Whether `sentence` holds an entry of each group at the start of a word."""
    lowered = sentence.lower()
    return all(any(_at_word_start(entry, lowered) for entry in group) for group in words)


def _at_word_start(entry: str, lowered: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(entry)}", lowered) is not None


@dataclass(frozen=True)
class Fact:
    text: str  # a clause: "the library closes early on Friday"
    origin: str | None = None  # the resident it starts from, when known
    words: Words = ()
    published: str = ""  # what a study reported of it

    @property
    def question(self) -> str:
        return f"Did you hear that {self.text}?"

    @cached_property
    def _asked(self) -> Asked:
        return asked_about(self.question)

    def about(self, sentence: str) -> bool:
        """Whether one sentence states the fact."""
        return states(sentence, self.words) if self.words else answers(sentence, self._asked)

    def as_json(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "origin": self.origin,
            "words": [list(g) for g in self.words],
            "published": self.published,
        }


@dataclass(frozen=True)
class Event:
    what: str  # a clause: "a harvest dance"
    host: str | None
    place: str  # a sector of the town
    start: datetime
    end: datetime
    words: Words = ()
    published: str = ""

    @cached_property
    def _default_asked(self) -> Asked:
        host = self.host or "someone"
        return asked_about(f"Did you hear that {host} is hosting {self.what} at {self.place}?")

    def about(self, sentence: str) -> bool:
        """Whether one sentence is about the event."""
        if self.words:
            return states(sentence, self.words)
        return answers(sentence, self._default_asked)

    def as_json(self) -> dict[str, Any]:
        return {
            "what": self.what,
            "host": self.host,
            "place": self.place,
            "start": self.start.isoformat(),
            "end": self.end.isoformat(),
            "words": [list(g) for g in self.words],
            "published": self.published,
        }


def measures_parse(facts: Any, events: Any) -> tuple[list[Fact], list[Event]]:
    """Facts (each a clause, or {"text", "origin", "words"}) and events ({"what", "host",
    "place", "start", "end", "words"}) as a request or a base names them, each checked;
    MeasureError naming the first bad field (`facts[1].text`)."""
    if isinstance(facts, list):
        facts = [{"text": f} if isinstance(f, str) else f for f in facts]
    try:
        measures = Measures.model_validate({"facts": facts, "events": events})
    except ValidationError as exc:
        errors = loc_errors(exc.errors(), prefix="")
        errors = {field or "facts": messages for field, messages in errors.items()}
        field, messages = next(iter(errors.items()))
        raise MeasureError(field, messages[0], errors) from None
    parsed_facts = [_fact(spec, i) for i, spec in enumerate(measures.facts)]
    parsed_events = [
        Event(e.what, e.host, e.place, e.start, e.end, _groups(e.words), e.published)
        for e in measures.events
    ]
    for name, keys in (
        ("facts", [f.text.lower() for f in parsed_facts]),
        ("events", [e.what.lower() for e in parsed_events]),
    ):
        for i, key in enumerate(keys):
            if key in keys[:i]:
                raise MeasureError(f"{name}[{i}]", "names the same as an earlier one")
    return parsed_facts, parsed_events


def _fact(spec: FactSpec, i: int) -> Fact:
    text = spec.text.strip().rstrip(".?!")
    if not spec.words and len(key_words(text)) < MIN_KEY_WORDS:
        raise MeasureError(
            f"facts[{i}].text",
            f"name a fact as a clause with at least {MIN_KEY_WORDS} words of four letters "
            'or more, e.g. "the library closes early on Friday", or give its words',
        )
    return Fact(text, spec.origin, _groups(spec.words), spec.published)


def _groups(words: list[list[str]]) -> Words:
    return tuple(tuple(entry.strip().lower() for entry in group) for group in words)


@dataclass(frozen=True)
class Named:
    facts: list[Fact]
    events: list[Event]
    questions: list[str]  # the interview's two on the town's news (may be empty)


def measures_resolve(simulation: Simulation, facts: Any = None, events: Any = None) -> Named:
    """What an evaluation of `simulation` measures: the facts and events named (None: its
    base's), each checked, an event's place against the simulation's town; the interview's
    questions on the news from its base."""
    base = _base_measures(simulation)
    parsed_facts, parsed_events = measures_parse(
        base.get("facts", []) if facts is None else facts,
        base.get("events", []) if events is None else events,
    )
    sectors = set(
        Location.objects.filter(town=simulation.town, kind=LocationKind.SECTOR).values_list(
            "name", flat=True
        )
    )
    for i, event in enumerate(parsed_events):
        if event.place not in sectors:
            raise MeasureError(
                f"events[{i}].place", f"{event.place!r} is no sector of {simulation.town.name}"
            )
    return Named(parsed_facts, parsed_events, list(base.get("questions", [])))


def _base_measures(simulation: Simulation) -> dict[str, Any]:
    try:
        base = base_resolve(user=simulation.owner, base=simulation.base)
    except UnknownBase:  # deleted since, or never a base
        return {}
    measures: dict[str, Any] = base.measures or {}
    return measures
