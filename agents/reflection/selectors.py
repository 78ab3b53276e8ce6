"""Reads of reflection: why an agent believes something, and how much it reflected."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Count, Max

from agents.events import REFLECTION_DONE
from memories.models import Memory, MemoryKind
from memories.retrieval import Scored
from memories.selectors import (
    EvidenceNode,
    memories_by_id,
    memory_evidence_tree,
    memory_retrieval,
)
from world.models import Agent, Event, Simulation

# Retrieval over reflections only: every other kind is left out.
_NOT_REFLECTIONS = tuple(kind for kind in MemoryKind.values if kind != MemoryKind.REFLECTION)


@dataclass(frozen=True)
class Explanation:
    """A reflection that bears on a statement, how it scored, and what it rests on."""

    scored: Scored
    tree: EvidenceNode


@dataclass(frozen=True)
class Why:
    statement: str
    now: datetime
    explanations: list[Explanation]


def reflection_why(*, simulation: Simulation, agent: Agent, statement: str, k: int = 5) -> Why:
    """ "Why does the agent believe X": its reflections ranked by retrieval (recency,
    importance, relevance to `statement`, normalised among reflections) at the current
    sim time, each with its evidence tree down to observations. Reads only.

    Raises RetrievalConfigError for bad weights and EmbeddingError if the statement
    cannot be embedded.
    """
    retrieval = memory_retrieval(
        simulation=simulation, agent=agent, query=statement, k=k, exclude_kinds=_NOT_REFLECTIONS
    )
    scored, now = retrieval.scored, retrieval.now
    rows = {m.pk: m for m in memories_by_id(ids=[s.memory_id for s in scored])}
    explanations = [
        Explanation(scored=s, tree=memory_evidence_tree(memory=rows[s.memory_id]))
        for s in scored
        if s.memory_id in rows
    ]
    return Why(statement=statement, now=now, explanations=explanations)


def reflection_stats(simulation: Simulation) -> dict[str, Any]:
    """How often each resident reflected and how deep its reflections go.

    A reflection is one `reflection.done` that made memories (the paper saw two or
    three a day per agent); `insights` counts the reflection memories it made.
    """
    names = list(
        Agent.objects.filter(simulation=simulation).order_by("name").values_list("name", flat=True)
    )
    reflections: Counter[str] = Counter()
    failed: Counter[str] = Counter()
    for agent, payload in Event.objects.filter(
        simulation=simulation, kind=REFLECTION_DONE
    ).values_list("agent", "payload"):
        if payload.get("failed"):
            failed[agent] += 1
        elif payload.get("reflections"):
            reflections[agent] += 1
    made: dict[str, tuple[int, int]] = {
        name: (insights, deepest)
        for name, insights, deepest in Memory.objects.filter(
            simulation=simulation, kind=MemoryKind.REFLECTION
        )
        .values("agent__name")
        .annotate(insights=Count("id"), deepest=Max("depth"))
        .values_list("agent__name", "insights", "deepest")
    }
    days = simulation.step * simulation.sec_per_step / 86_400
    per_agent = {
        name: {
            "reflections": reflections[name],
            "failed": failed[name],
            "insights": made.get(name, (0, 0))[0],
            "deepest": made.get(name, (0, 0))[1],
        }
        for name in names
    }
    return {
        "sim_days": round(days, 4),
        "residents": len(names),
        "residents_reflecting": sum(1 for name in names if reflections[name]),
        "reflections": sum(reflections.values()),
        "failed": sum(failed.values()),
        "mean_per_agent_per_day": (
            round(sum(reflections.values()) / len(names) / days, 3) if names and days else 0.0
        ),
        "deepest": max((row["deepest"] for row in per_agent.values()), default=0),
        "per_agent": per_agent,
    }
