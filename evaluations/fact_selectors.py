"""Reads of one named fact's diffusion, for watching it travel (the viewer's "Colour by
fact"): the facts a simulation's base names, and who holds a fact, from which step, and who
told it. "Holds" is the diffusion measure's (evaluations.emergence): one sentence of one of
the resident's memories states the fact; its first such memory gives the step it first held
it; the first of them whose memo names another resident as its teller (`source.from`)
gives who told it, null when none does (the source, a seed memory, a whisper, its own
thought)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from agents.bases.reference import UnknownBase
from agents.bases.selectors import base_resolve
from world.models import Simulation

from .emergence import diffusion, holds, remembered
from .named import Fact, MeasureError, measures_parse

# What a request's fact fields are called, by the path measures_parse names them with.
_FIELDS = {"text": "fact", "origin": "origin", "words": "words", "published": "fact"}


@dataclass(frozen=True)
class Holder:
    name: str
    step: int  # the first step it held the fact at
    sim_time: datetime
    told_by: str | None  # the resident who told it, or None
    hop: int | None  # on the shortest chain of tellers back to the source; None: unknown


@dataclass(frozen=True)
class Holders:
    fact: Fact
    source: str | None  # the resident it starts from (named, or the first to hold it)
    residents: int  # how many residents the simulation has had
    step: int  # the simulation's step when read: later steps may add holders
    holders: list[Holder]  # by first step, then name


def facts_named(*, simulation: Simulation) -> list[Fact]:
    """The facts the simulation's base names (its `measures`); none for a base without or
    one gone. A base's fact that cannot be measured (too few key words and no `words`: the
    base's schema allows it, an evaluation refuses it) is left out."""
    try:
        base = base_resolve(user=simulation.owner, base=simulation.base)
    except UnknownBase:
        return []
    facts: list[Fact] = []
    for spec in (base.measures or {}).get("facts", []):
        try:
            facts += measures_parse([spec], [])[0]
        except MeasureError:
            continue
    return facts


def fact_read(
    *,
    simulation: Simulation,
    text: str,
    words: list[list[str]] | None = None,
    origin: str | None = None,
) -> Fact:
    """A fact as a request names it: a clause, optionally its words and origin. A clause
    the base names takes the base's words and origin unless given. MeasureError names the
    request's field (`fact`, `words`, `origin`) when it cannot be measured."""
    key = text.strip().rstrip(".?!").lower()
    named = next((f for f in facts_named(simulation=simulation) if f.text.lower() == key), None)
    spec: dict[str, Any] = {"text": text}
    if named is not None:
        spec |= {"origin": named.origin, "words": [list(group) for group in named.words]}
    if words:
        spec["words"] = words
    if origin is not None:
        spec["origin"] = origin
    try:
        [fact], _ = measures_parse([spec], [])
    except MeasureError as exc:
        part = re.match(r"facts\[0\]\.(\w+)", exc.field)  # facts[0].words[1][0]
        field = _FIELDS.get(part.group(1), "fact") if part else "fact"
        raise MeasureError(field, exc.message) from None
    if fact.origin is not None and not simulation.agents.filter(name=fact.origin).exists():
        raise MeasureError("origin", f"no resident {fact.origin!r} lives in the simulation")
    return fact


def fact_holders(*, simulation: Simulation, fact: Fact) -> Holders:
    """Who holds `fact` in the simulation's memories (see the module's docstring)."""
    stating = [m for m in remembered(simulation) if holds(m.description, fact.about)]
    residents = set(simulation.agents.values_list("name", flat=True))
    source = fact.origin or (stating[0].agent if stating else None)
    hops: dict[str, Any] = {}
    if len(residents) > 1:  # the measure's shares are over the others
        spread = diffusion(simulation, stating, fact.origin, fact.about)
        hops = {a: r["hop"] for a, r in spread["residents"].items()}
    if source:
        hops[source] = 0
    first: dict[str, datetime] = {}
    told_by: dict[str, str] = {}
    for memory in stating:
        first.setdefault(memory.agent, memory.created)
        teller = (memory.source or {}).get("from")
        if teller in residents and teller != memory.agent:
            told_by.setdefault(memory.agent, teller)
    holders = [
        Holder(
            name=name,
            step=simulation.step_at(created),
            sim_time=created,
            told_by=told_by.get(name),
            hop=hops[name] if isinstance(hops.get(name), int) else None,
        )
        for name, created in first.items()
    ]
    holders.sort(key=lambda h: (h.step, h.name))
    return Holders(fact, source, len(residents), simulation.step, holders)
