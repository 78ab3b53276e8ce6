"""Projection of memory events onto `Memory` and `Evidence` rows.

A memory's embedding is not copied into the log: the event names the text's hash, and the
vector is read from the content-addressed `EmbeddingCache` (model, "passage", sha256), which
is never rewritten. So the log stays small and a rebuild recreates identical vectors.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np
from django.db import connection
from django.db.models import OuterRef, Subquery

from world.models import Agent, Event, Simulation

from .events import MEMORY_CREATED, MEMORY_RATED, MEMORY_TOUCHED
from .models import EmbeddingCache, Evidence, Memory

PASSAGE = "passage"


_TOUCH_SQL = """
UPDATE memories_memory AS m SET last_accessed = t.at
FROM jsonb_to_recordset(%s::jsonb) AS t(agent_id bigint, number int, at timestamptz)
WHERE m.agent_id = t.agent_id AND m.number = t.number
"""


_RATE_SQL = """
UPDATE memories_memory AS m SET importance = r.importance, rating_due = NULL
FROM jsonb_to_recordset(%s::jsonb) AS r(agent_id bigint, number int, importance int)
WHERE m.agent_id = r.agent_id AND m.number = r.number
"""


# A batch of memories in one statement, each taking its vector from the embedding cache.
_CREATE_SQL = f"""
INSERT INTO {Memory._meta.db_table} (
    simulation_id, agent_id, number, kind, description, subject, predicate, object,
    created, last_accessed, importance, rating_due, embedding, depth, source
)
SELECT %s, r.agent_id, r.number, r.kind, r.description, r.subject, r.predicate, r.object,
       r.created, r.created, r.importance, r.rating_due, c.embedding, r.depth, r.source
FROM jsonb_to_recordset(%s::jsonb) AS r(
    agent_id bigint, number int, kind text, description text, subject text, predicate text,
    object text, created timestamptz, importance int, rating_due int, model text,
    text_hash text, depth int, source jsonb
)
JOIN {EmbeddingCache._meta.db_table} AS c
  ON c.model = r.model AND c.kind = '{PASSAGE}' AND c.text_hash = r.text_hash
RETURNING id, agent_id, number
"""


class MemoryProjection:
    name = "memories"
    order = 20
    kinds = frozenset({MEMORY_CREATED, MEMORY_TOUCHED, MEMORY_RATED})
    in_log_order = False

    def reset(self, simulation: Simulation) -> None:
        Memory.objects.filter(simulation=simulation).delete()

    def apply(self, simulation: Simulation, events: Sequence[Event]) -> None:

        agent_ids = dict(Agent.objects.filter(simulation=simulation).values_list("name", "id"))
        created = [e for e in events if e.kind == MEMORY_CREATED]
        if created:
            self._create(simulation, created, agent_ids)
        # Touches in log order, the last one of a memory winning, in one UPDATE.
        touches = {
            (agent_ids[event.agent], number): event.payload["at"]
            for event in events
            if event.kind == MEMORY_TOUCHED
            for number in event.payload["numbers"]
        }
        if touches:
            rows = [{"agent_id": a, "number": n, "at": at} for (a, n), at in touches.items()]
            with connection.cursor() as cursor:
                cursor.execute(_TOUCH_SQL, [json.dumps(rows)])
        ratings = [
            {"agent_id": agent_ids[event.agent], "number": number, "importance": importance}
            for event in events
            if event.kind == MEMORY_RATED
            for number, importance in zip(
                event.payload["numbers"], event.payload["importance"], strict=True
            )
        ]
        if ratings:
            with connection.cursor() as cursor:
                cursor.execute(_RATE_SQL, [json.dumps(ratings)])

    def _create(
        self, simulation: Simulation, events: Sequence[Event], agent_ids: dict[str, int]
    ) -> None:
        # Depths of cited memories that are not in this batch.
        cited: dict[int, set[int]] = defaultdict(set)
        for event in events:
            for number in event.payload.get("evidence", []):
                cited[agent_ids[event.agent]].add(number)
        known: dict[tuple[int, int], tuple[int, int]] = {}  # (agent, number) -> (id, depth)
        for agent_id, numbers in cited.items():
            for pk, number, depth in Memory.objects.filter(
                agent_id=agent_id, number__in=numbers
            ).values_list("id", "number", "depth"):
                known[(agent_id, number)] = (pk, depth)

        # Numbers continue each agent's count in log order, so a rebuild assigns the same;
        # each agent's largest is one probe of its (agent, number) index.
        writers = {agent_ids[e.agent] for e in events}
        largest = Memory.objects.filter(agent=OuterRef("pk")).order_by("-number").values("number")
        next_number = {
            agent_id: (top or 0) + 1
            for agent_id, top in Agent.objects.filter(pk__in=writers)
            .annotate(top=Subquery(largest[:1]))
            .values_list("pk", "top")
        }
        rows: list[dict[str, Any]] = []
        for event in events:
            p = event.payload
            agent_id = agent_ids[event.agent]
            depth = 0
            if p["kind"] == "reflection":
                depth = 1 + max((_depth(known, agent_id, n) for n in p["evidence"]), default=0)
            rows.append(
                {
                    "agent_id": agent_id,
                    "number": next_number[agent_id],
                    "kind": p["kind"],
                    "description": p["description"],
                    "subject": p.get("subject", ""),
                    "predicate": p.get("predicate", ""),
                    "object": p.get("object", ""),
                    "created": event.sim_time.isoformat(),
                    "importance": p["importance"],
                    "rating_due": p.get("rating_due"),
                    "model": p["embedding_model"],
                    "text_hash": p["embedding_hash"],
                    "depth": depth,
                    "source": p.get("source", {}),
                }
            )
            known[(agent_id, next_number[agent_id])] = (-1, depth)
            next_number[agent_id] += 1
        # The vectors go from the cache to the rows inside the database, never through here.
        with connection.cursor() as cursor:
            cursor.execute(_CREATE_SQL, [simulation.pk, json.dumps(rows)])
            ids = {(agent_id, number): pk for pk, agent_id, number in cursor.fetchall()}
        if len(ids) != len(rows):
            missing = len(rows) - len(ids)
            raise LookupError(f"{missing} memory embeddings are missing from the cache")
        links = []
        for event, row in zip(events, rows, strict=True):
            memory_id = ids[(row["agent_id"], row["number"])]
            for position, number in enumerate(event.payload.get("evidence", [])):
                target = ids.get((row["agent_id"], number)) or known[(row["agent_id"], number)][0]
                links.append(Evidence(reflection_id=memory_id, memory_id=target, position=position))
        Evidence.objects.bulk_create(links)

    def snapshot(self, simulation: Simulation) -> Any:
        evidence: dict[int, list[int]] = defaultdict(list)
        for reflection_id, number in (
            Evidence.objects.filter(reflection__simulation=simulation)
            .order_by("reflection_id", "position")
            .values_list("reflection_id", "memory__number")
        ):
            evidence[reflection_id].append(number)
        return [
            {
                "agent": m.agent.name,
                "number": m.number,
                "kind": m.kind,
                "description": m.description,
                "spo": [m.subject, m.predicate, m.object],
                "created": m.created.isoformat(),
                "last_accessed": m.last_accessed.isoformat(),
                "importance": m.importance,
                "rating_due": m.rating_due,
                "depth": m.depth,
                "embedding": hashlib.sha256(_vector_bytes(m.embedding)).hexdigest(),
                "evidence": evidence.get(m.pk, []),
                "source": m.source,
            }
            for m in Memory.objects.filter(simulation=simulation)
            .select_related("agent")
            .order_by("agent__name", "number")
        ]


def _vector_bytes(vector: Any) -> bytes:
    """float32 bytes of a vector as pgvector returns it (a list, or an array in older pgvector)."""
    return np.asarray(vector, dtype=np.float32).tobytes()


def _depth(known: dict[tuple[int, int], tuple[int, int]], agent_id: int, number: int) -> int:
    if (agent_id, number) not in known:
        raise LookupError(
            f"evidence cites memory {number} of agent {agent_id}, which does not exist"
        )
    return known[(agent_id, number)][1]
