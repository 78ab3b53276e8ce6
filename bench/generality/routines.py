"""The day as the stand-in reads it from a generated resident's identity, against the
truth its words state, with no simulation: `python -m bench generality --routines N`.
Hundreds of residents in a minute, so a change to how identities are read is measured
on many more phrasings than the lived worlds hold (which judge what residents then do).
"""

from __future__ import annotations

from typing import Any

from agents.offline.routine import routine
from bench.generality.measure import WAKE_TOLERANCE, apart
from bench.generality.people import DAY, Person
from bench.generality.world import World, world_make
from llm.inputs import agent_traits
from world.models import Agent


def _inputs(world: World, person: Person) -> dict[str, Any]:
    """The day plan's inputs as a simulation of the world gives them: the identity's fields
    (`llm.inputs.agent_traits`), the summary as the stand-in writes it (age, innate traits,
    learned traits, what it is doing now) and the places as "sector: arena, arena" lines."""
    fields = person.fields
    summary = (
        f"{person.name} is {fields['age']} years old. {person.name} is {fields['innate']}. "
        f"{fields['learned']} {fields['currently']}"
    )
    places = "\n".join(f"{p.sector}: {', '.join(a for a, _ in p.arenas)}" for p in world.places)
    identity = agent_traits(
        Agent(
            name=person.name,
            age=fields["age"],
            innate=fields["innate"],
            learned=fields["learned"],
            currently=fields["currently"],
        )
    )
    return {
        "agent_name": person.name,
        "identity": identity,
        "lifestyle": fields["lifestyle"],
        "daily_plan_requirement": fields["daily_plan_requirement"],
        "summary": summary,
        "living_area": fields["living_area"],
        "places": places,
    }


def routines_read(seeds: range) -> dict[str, Any]:
    """Over the residents of the worlds of `seeds`: the stated wake time read within
    WAKE_TOLERANCE, the work hours' start and end read exactly, and the workplace read,
    by how the identity names it (the place, one of its rooms, or only the occupation)."""
    counts: dict[str, list[int]] = {}

    def add(figure: str, hit: bool) -> None:
        tally = counts.setdefault(figure, [0, 0])
        tally[0] += hit
        tally[1] += 1

    for seed in seeds:
        world = world_make(seed)
        for person in world.people:
            read = routine(_inputs(world, person))
            add("wake", apart(read.wake, person.wake) <= WAKE_TOLERANCE)
            add("work_start", read.work_start == person.work_start)
            add("work_end", read.work_end == person.work_end % DAY)
            add("workplace", read.workplace == person.work.sector)
            add(f"workplace named by {person.named_by}", read.workplace == person.work.sector)
    return {
        figure: {"numerator": hit, "denominator": n, "share": round(hit / n, 4)}
        for figure, (hit, n) in counts.items()
    }
