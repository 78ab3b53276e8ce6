"""Emergence, read from the memory stream and the event log: diffusion, attendance, density.

The paper's section 7 measures (Park et al. 2023), on any simulation, for the facts and
events an evaluation names (evaluations.named; by default its base's).

Information diffusion. A resident holds a fact when one of its memories (any kind: a
memo, a conversation, a reflection...) states it in one sentence (`Fact.about`). One
sentence, not the whole description: a conversation's memory quotes several lines, and
"A and B had a conversation. B said: 'I wonder who will run for mayor'" states no
candidacy. Holders are counted among the other residents (the source excluded) and, as the
paper's percentages are (its start is "one agent (4%)"), among all. Hops follow the memos'
`source.from` back to the source: a memo heard from the source is hop 1, one heard from a
hop-1 holder (who held it when it was told) hop 2, and so on; the shortest chain counts. A
holder with no such chain (it knew from its seed memories, or only a conversation memory
says it) is "hop unknown". "First heard" is the sim time of its first memory that holds it.

Attendance. Who is in the event's sector during its window, from the log: a resident's
tile is the `tile` of its `agent.created` event until its first `agent.moved` event, and
the `tile` of its latest `agent.moved` event after that (every tile change is an
`agent.moved` event: one tile per step, `agent.acting` only sets the path still to walk).
The tiles it stands on in the window are its tile at the window's first step (after that
step's move, if any) and those of its moves after it; it came when one of them is in the
sector (the town's sector layer). Of those, who has a plan row (live or superseded) citing
a commitment's memory about the event (`PlanItem.source_memory`), who committed to it (a
`Commitment` whose `what`, or the memory it came from, is about it), and who was invited
(heard of it from another resident: a memory about it whose memo source names them). For
scale, who was there in the same hours the day before. The paper: 12 invited, 5 came.

Network density. A pair of residents is connected when either has a memory that names
the other's full name; density is the connected pairs over n(n-1)/2. At the start: the
memories of sim time 0 (the seed memories); at the end: all.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Sequence
from datetime import datetime, timedelta
from typing import Any, NamedTuple

from agents.events import AGENT_CREATED, AGENT_MOVED
from agents.models import Commitment, PlanItem
from agents.offline.key_words import sentences
from memories.models import Memory, MemoryKind
from world.models import Event, Simulation, Town

from .named import Event as NamedEvent
from .named import Fact

PAPER_DENSITY = "0.167 -> 0.74"


def holds(description: str, about: Callable[[str], bool]) -> bool:
    """Whether one sentence of the memory states the news."""
    return any(about(sentence) for sentence in sentences(description))


class Remembered(NamedTuple):
    agent: str
    number: int
    kind: str
    description: str
    created: datetime
    source: dict[str, Any]


def remembered(simulation: Simulation) -> list[Remembered]:
    """Every memory of the simulation, in creation order."""
    rows = Memory.objects.filter(simulation=simulation).values_list(
        "agent__name", "number", "kind", "description", "created", "source"
    )
    return sorted((Remembered(*row) for row in rows), key=lambda m: (m.created, m.number))


def diffusion(
    simulation: Simulation,
    memories: list[Remembered],
    origin: str | None,
    about: Callable[[str], bool],
) -> dict[str, Any]:
    """Who holds the news, when each first heard it and from whom (`from`: the teller on
    its shortest chain back to the source), and the share over time. With no `origin` the
    source is the first resident to hold it."""
    residents = sorted(simulation.agents.values_list("name", flat=True))
    others = len(residents) - 1
    stating = [m for m in memories if holds(m.description, about)]
    if origin is None:
        origin = stating[0].agent if stating else ""
    first: dict[str, datetime] = {}
    hop: dict[str, int] = {origin: 0}
    told_by: dict[str, str] = {}
    at_start: set[str] = set()
    for agent, _number, _kind, _description, created, source in stating:
        first.setdefault(agent, created)
        if created <= simulation.start_time:
            at_start.add(agent)
        teller = (source or {}).get("from")
        # the teller held it when it told
        if agent != origin and teller in hop and hop[teller] + 1 < hop.get(agent, 1 << 30):
            hop[agent] = hop[teller] + 1
            told_by[agent] = teller
    holders = sorted(a for a in first if a != origin)
    by_hop: dict[str, int] = defaultdict(int)
    for agent in holders:
        by_hop[str(hop[agent]) if agent in hop else "unknown"] += 1
    knew_at_start = sorted(at_start - {origin})
    return {
        "source": origin,
        "source_holds_it": origin in first,
        "holders": len(holders),
        "of_the_others": f"{len(holders)} of {others} ({100 * len(holders) / others:.0f}%)",
        "paper_denominator": f"{len(first)} of {len(residents)} "
        f"({100 * len(first) / len(residents):.0f}%) with the source",
        "knew_at_start_besides_the_source": knew_at_start,
        "by_hop": dict(sorted(by_hop.items())),
        "residents": {
            agent: {
                "hop": hop.get(agent, "unknown"),
                "from": told_by.get(agent),
                "first_heard": first[agent].strftime("%Y-%m-%d %H:%M"),
            }
            for agent in sorted(holders, key=lambda a: first[a])
        },
        "over_time": [
            {
                "time": first[agent].strftime("%Y-%m-%d %H:%M"),
                "holders": i,
                "percent_of_the_others": round(100 * i / others, 1) if others else 0.0,
            }
            for i, agent in enumerate(sorted(holders, key=lambda a: first[a]), 1)
        ],
    }


def sector_tiles(town: Town, sector: str) -> set[int]:
    """The tile indices of a sector, from the town's sector layer and its legend."""
    ids = {int(row[0]) for row in town.legends["sector"] if row[2].strip() == sector}
    return {i for i, block in enumerate(town.sector_layer) if block in ids}


def present(simulation: Simulation, tiles: set[int], start: datetime, end: datetime) -> list[str]:
    """The residents standing on one of `tiles` at some step of [start, end], replayed from
    the log (see the module's docstring)."""
    first = int((start - simulation.start_time).total_seconds()) // simulation.sec_per_step
    last = int((end - simulation.start_time).total_seconds()) // simulation.sec_per_step
    if simulation.step < first:
        return []
    town = simulation.town
    where: dict[str, tuple[int, int]] = {}
    seen: dict[str, set[int]] = defaultdict(set)
    events = Event.objects.filter(
        simulation=simulation, kind__in=[AGENT_CREATED, AGENT_MOVED], step__lte=last
    ).order_by("seq")
    for agent, step, payload in events.values_list("agent", "step", "payload").iterator(
        chunk_size=5000
    ):
        if step > first and agent in where and agent not in seen:
            # It held its tile at the window's first step (a move at that step replaces it).
            seen[agent].add(town.tile_index(*where[agent]))
        x, y = payload["tile"]
        where[agent] = (x, y)
        if step >= first:
            seen[agent].add(town.tile_index(x, y))
    for agent, (x, y) in where.items():
        if agent not in seen:  # did not move in the window
            seen[agent].add(town.tile_index(x, y))
    return sorted(agent for agent, at in seen.items() if at & tiles)


def invited(simulation: Simulation, memories: list[Remembered], event: NamedEvent) -> list[str]:
    """Who heard of the event from another resident: a memory about it whose memo source
    (`source.from`) is someone else of the town."""
    residents = set(simulation.agents.values_list("name", flat=True))
    return sorted(
        {
            m.agent
            for m in memories
            if (m.source or {}).get("from") in residents - {m.agent}
            and m.agent != event.host
            and holds(m.description, event.about)
        }
    )


def attendance(
    simulation: Simulation, memories: list[Remembered], event: NamedEvent
) -> dict[str, Any]:
    """Who committed to the event, planned for it, was invited and came (see the module's
    docstring)."""
    described = {(m.agent, m.number): m.description for m in memories}
    commitments = Commitment.objects.filter(simulation=simulation).select_related("agent")
    committed: dict[str, list[int]] = defaultdict(list)  # resident -> its memory numbers
    for c in commitments:
        memory = described.get((c.agent.name, c.memory or 0), "")
        if holds(c.what, event.about) or holds(memory, event.about):
            committed[c.agent.name].append(c.memory or 0)
    planned: set[str] = set()
    for agent, number in PlanItem.objects.filter(
        simulation=simulation, source_memory__isnull=False
    ).values_list("agent__name", "source_memory"):
        cited = described.get((agent, number or 0), "")
        if number in committed.get(agent, ()) or holds(cited, event.about):
            planned.add(agent)
    place = sector_tiles(simulation.town, event.place)
    came = present(simulation, place, event.start, event.end)
    heard = invited(simulation, memories, event)
    day = timedelta(days=1)
    usual = present(simulation, place, event.start - day, event.end - day)
    return {
        "event": event.what,
        "host": event.host,
        "window": f"{event.start:%Y-%m-%d %H:%M}-{event.end:%H:%M} at {event.place}",
        "window_reached": simulation.sim_time >= event.end,
        "committed": len(committed),
        "committed_residents": sorted(committed),
        "with_a_plan_row_for_it": len(planned),
        "came": len(came),
        "came_residents": came,
        "came_with_a_plan_row_for_it": len(set(came) & planned),
        "there_the_day_before_same_hours": len(usual),
        "committed_and_came": sorted(set(came) & set(committed)),
        "invited": len(heard),
        "invited_residents": heard,
        "invited_and_came": sorted(set(came) & set(heard)),
    }


def density(
    simulation: Simulation,
    memories: Iterable[Remembered],
    until: datetime | None,
    kinds: Collection[str] = (),
) -> dict[str, Any]:
    """Connected pairs (either names the other in a memory of sim time `until` or before,
    of `kinds` if given) and the density."""
    residents = list(simulation.agents.values_list("name", flat=True))
    pairs: set[frozenset[str]] = set()
    for m in memories:
        if (until is not None and m.created > until) or (kinds and m.kind not in kinds):
            continue
        for other in residents:
            if other != m.agent and other in m.description:
                pairs.add(frozenset((m.agent, other)))
    possible = len(residents) * (len(residents) - 1) // 2
    return {
        "pairs": len(pairs),
        "possible_pairs": possible,
        "density": round(len(pairs) / possible, 3) if possible else 0.0,
    }


# The shapes of word statistics the old offline reflections had ("Sam Moore associates
# local with mayor", "For Sam Moore, election and told often go together").
WORD_STATISTICS = re.compile(
    r"\bassociates\b[^.;\"]*?\bwith\b|\band\b[^.;\"]*?\b(?:often )?go together\b", re.IGNORECASE
)


def word_statistics(memories: Iterable[Remembered]) -> dict[str, Any]:
    """The memories (reflections, thoughts: memos and planning thoughts, conversations: news
    passed on) with a line of the word-statistics shapes, by kind, with examples."""
    by_kind: dict[str, int] = defaultdict(int)
    examples: list[str] = []
    for m in memories:
        found = WORD_STATISTICS.search(m.description)
        if found is not None:
            by_kind[m.kind] += 1
            if len(examples) < 10:
                examples.append(f"{m.agent} ({m.kind}): {m.description[:200]}")
    return {"memories": sum(by_kind.values()), "by_kind": dict(by_kind), "examples": examples}


def emergence_measure(
    *, simulation: Simulation, facts: Sequence[Fact] = (), events: Sequence[NamedEvent] = ()
) -> dict[str, Any]:
    """Each fact's diffusion, each event's attendance and the network's density."""
    memories = remembered(simulation)
    start, end = (
        density(simulation, memories, simulation.start_time),
        density(simulation, memories, None),
    )
    # Seeing someone is not knowing them: the pairs that talked, heard of or thought about
    # each other (the paper asked each resident whether it knew the other).
    told = (MemoryKind.CONVERSATION, MemoryKind.THOUGHT, MemoryKind.REFLECTION)
    return {
        "news": [
            {"fact": f.text, **diffusion(simulation, memories, f.origin, f.about)} for f in facts
        ],
        "events": [attendance(simulation, memories, e) for e in events],
        "network_density": {
            "start": start,
            "end": end,
            "end_without_observations_and_plans": density(simulation, memories, None, told),
            "possible_pairs": start["possible_pairs"],
        },
    }
