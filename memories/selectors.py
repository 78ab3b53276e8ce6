"""Reads of the memory stream: an agent's memories, its evidence trees, and retrieval."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, TypedDict

from django.contrib.postgres.expressions import ArraySubquery
from django.db import connection
from django.db.models import OuterRef, QuerySet

from world.models import Simulation

from .embeddings import embed_query
from .models import Evidence, Memory
from .retrieval import Mode, Scored, Weights, memories_retrieve, weights_for

if TYPE_CHECKING:
    from world.models import Agent

# Reflections cite earlier memories, so the tree is finite and acyclic by construction;
# the limit keeps a corrupted table from turning a read into an unbounded walk.
EVIDENCE_MAX_DEPTH = 20


class EvidenceNode(TypedDict):
    memory: Memory
    evidence: list[EvidenceNode]


def _with_evidence_numbers(memories: QuerySet[Memory]) -> QuerySet[Memory]:
    """Without the vector (1.5 KB a row, never sent), with the cited numbers in order."""
    cited = (
        Evidence.objects.filter(reflection=OuterRef("pk"))
        .order_by("position")
        .values("memory__number")
    )
    return memories.defer("embedding").annotate(evidence_numbers=ArraySubquery(cited))


def memory_list(*, agent: Agent) -> QuerySet[Memory]:
    """The agent's memory stream, newest first; each row has `evidence_numbers`."""
    return _with_evidence_numbers(Memory.objects.filter(agent=agent)).order_by("-number")


def memory_get(*, agent: Agent, number: int) -> Memory:
    """One memory of the agent by its number; raises Memory.DoesNotExist."""
    return memory_list(agent=agent).get(number=number)


def memories_by_id(*, ids: list[int]) -> list[Memory]:
    """Memory rows (with `evidence_numbers`) in the order of `ids`, e.g. a ranking."""
    found = _with_evidence_numbers(Memory.objects.filter(pk__in=ids)).in_bulk()
    return [found[pk] for pk in ids if pk in found]


# Every evidence link reachable from one reflection. UNION drops a row already produced,
# so a memory cited along many paths is walked once per depth, not once per path; the
# depth limit ends a cycle (which only a corrupted table could hold).
_EVIDENCE_TREE_SQL = """
WITH RECURSIVE tree(reflection_id, memory_id, position, depth) AS (
    SELECT e.reflection_id, e.memory_id, e.position, 1
    FROM memories_evidence e
    WHERE e.reflection_id = %(root)s
  UNION
    SELECT e.reflection_id, e.memory_id, e.position, t.depth + 1
    FROM memories_evidence e
    JOIN tree t ON e.reflection_id = t.memory_id
    WHERE t.depth < %(max_depth)s
)
SELECT DISTINCT reflection_id, memory_id, position FROM tree
"""


def memory_evidence_tree(*, memory: Memory) -> EvidenceNode:
    """The memories `memory` cites, and theirs, down to observations, in citation order.

    Two queries whatever the size: one recursive walk of the links, one for the rows.
    """
    with connection.cursor() as cursor:
        cursor.execute(_EVIDENCE_TREE_SQL, {"root": memory.pk, "max_depth": EVIDENCE_MAX_DEPTH})
        links: list[tuple[int, int, int]] = cursor.fetchall()
    cites: dict[int, list[tuple[int, int]]] = {}
    for reflection_id, memory_id, position in links:
        cites.setdefault(reflection_id, []).append((position, memory_id))
    ids = {memory.pk} | {memory_id for _, memory_id, _ in links}
    rows = {m.pk: m for m in memories_by_id(ids=sorted(ids))}

    def node(pk: int, ancestors: frozenset[int]) -> EvidenceNode:
        path = ancestors | {pk}
        children = [
            node(child, path)
            for _, child in sorted(cites.get(pk, []))
            if child not in path and len(path) <= EVIDENCE_MAX_DEPTH
        ]
        return {"memory": rows[pk], "evidence": children}

    return node(memory.pk, frozenset())


def cited_by(*, memory: Memory) -> QuerySet[Memory]:
    """The reflections that cite `memory`, oldest first."""
    citing = Memory.objects.filter(evidence_links__memory=memory).distinct()
    return citing.defer("embedding").order_by("number")


class RetrievalConfigError(ValueError):
    """The simulation's config holds retrieval weights that are not valid."""


@dataclass(frozen=True)
class Retrieval:
    """A ranking of an agent's memories for a query, and what it was computed with."""

    query: str
    mode: Mode
    weights: Weights
    decay: float
    now: datetime
    scored: list[Scored]


def memory_retrieval(
    *,
    simulation: Simulation,
    agent: Agent,
    query: str,
    k: int = 10,
    mode: Mode = Mode.EXACT,
    exclude_kinds: Sequence[str] = (),
) -> Retrieval:
    """The agent's top-k memories for `query` at the simulation's sim time, with the
    simulation's weights and the agent's recency decay. Reads only: touching is the
    caller's choice (memories.services.memories_touch).

    Raises RetrievalConfigError for bad weights and EmbeddingError if the query cannot
    be embedded.
    """
    try:
        weights = weights_for(simulation.config)
    except (TypeError, ValueError) as exc:
        raise RetrievalConfigError(
            f"the simulation's retrieval_weights are invalid: {exc}"
        ) from exc
    now = simulation.sim_time
    vector = embed_query(text=query, simulation=simulation)
    scored = memories_retrieve(
        agent_id=agent.pk,
        query_embedding=vector,
        now=now,
        decay=agent.recency_decay,
        weights=weights,
        k=k,
        mode=mode,
        exclude_kinds=exclude_kinds,
    )
    return Retrieval(query, mode, weights, agent.recency_decay, now, scored)


@dataclass(frozen=True)
class Unrated:
    """A memory whose importance is provisional until step `rating_due`."""

    number: int
    kind: str
    description: str
    rating_due: int


def memories_unrated(*, agent_ids: Sequence[int]) -> dict[int, list[Unrated]]:
    """Agent id -> its memories awaiting the model's rating, by due step and number (one
    read for all; agents with none are left out)."""
    found: dict[int, list[Unrated]] = {}
    rows = (
        Memory.objects.filter(agent_id__in=list(agent_ids), rating_due__isnull=False)
        .order_by("agent_id", "rating_due", "number")
        .values_list("agent_id", "number", "kind", "description", "rating_due")
    )
    for agent_id, number, kind, description, due in rows:
        assert due is not None
        found.setdefault(agent_id, []).append(Unrated(number, kind, description, due))
    return found
