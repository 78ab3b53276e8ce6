"""Retrieval as the paper defines it: recency, importance and relevance, min-max normalised.

    score = w_rec * norm(decay ** hours_since_last_access)
          + w_imp * norm(importance)
          + w_rel * norm(cosine(memory, query))

`norm` is min-max over the agent's memories (a constant term normalises to 0.5, as in the
reference code). Exact mode scores every memory of the agent in one SQL statement. Scale
mode takes HNSW candidates (pgvector iterative scan, filtered to the agent) plus the most
recent and most important memories and rescores them with the same formula; the bounds
come from indexes (recency, importance) and from two HNSW probes (the nearest memory to
the query and to its opposite give the largest and smallest cosine).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

import numpy as np
from django.db import connection, transaction

from .models import Memory


class Mode(StrEnum):
    EXACT = "exact"
    SCALE = "scale"


@dataclass(frozen=True)
class Weights:
    recency: float = 1.0
    importance: float = 1.0
    relevance: float = 1.0

    def __post_init__(self) -> None:
        for name in ("recency", "importance", "relevance"):
            value = float(getattr(self, name))
            if not math.isfinite(value) or value < 0:
                raise ValueError(f"the {name} weight must be a finite number >= 0, got {value}")
            # Postgres rejects subnormal doubles; a weight that small is zero anyway.
            object.__setattr__(self, name, value if value >= 1e-300 else 0.0)


PRESETS = {
    "paper": Weights(1.0, 1.0, 1.0),
    # The reference code's global weights: recency 0.5, relevance 3, importance 2.
    "reference": Weights(recency=0.5, importance=2.0, relevance=3.0),
}


def weights_for(config: dict[str, Any]) -> Weights:
    """A simulation's weights: config {"retrieval_weights": "reference" | {...}}."""
    value = config.get("retrieval_weights", "paper")
    if isinstance(value, str):
        if value not in PRESETS:
            raise ValueError(f"unknown retrieval preset {value!r}; one of {sorted(PRESETS)}")
        return PRESETS[value]
    return Weights(**{k: float(v) for k, v in value.items()})


@dataclass(frozen=True)
class Scored:
    memory_id: int
    number: int
    recency: float
    importance: float
    relevance: float
    score: float


def vector_literal(vector: np.ndarray) -> str:
    return "[" + ",".join(f"{x:.8g}" for x in np.asarray(vector, dtype=np.float32)) + "]"


# Raw terms for one agent's memories; $-free so the same text serves both modes.
_TERMS = """
    SELECT m.id, m.number, m.importance::float8 AS imp,
           power(%(decay)s::float8,
                 greatest(extract(epoch FROM (%(now)s::timestamptz - m.last_accessed)), 0)
                 / 3600.0) AS rec,
           1 - (m.embedding <=> %(query)s::vector) AS rel
    FROM memories_memory m
"""

_SCORE = """
    SELECT s.id, s.number, s.rec, s.imp, s.rel,
           %(w_rec)s * coalesce((s.rec - b.r0) / nullif(b.r1 - b.r0, 0), 0.5)
         + %(w_imp)s * coalesce((s.imp - b.i0) / nullif(b.i1 - b.i0, 0), 0.5)
         + %(w_rel)s * coalesce((s.rel - b.v0) / nullif(b.v1 - b.v0, 0), 0.5) AS score
    FROM s, b
    ORDER BY score DESC, s.number DESC
    LIMIT %(k)s
"""

_KINDS = "AND NOT (m.kind = ANY(%(exclude)s::text[]))"

EXACT_SQL = f"""
WITH s AS ({_TERMS} WHERE m.agent_id = %(agent)s {_KINDS}),
b AS (SELECT min(rec) r0, max(rec) r1, min(imp) i0, max(imp) i1, min(rel) v0, max(rel) v1
      FROM s)
{_SCORE}
"""

SCALE_SQL = f"""
WITH c AS (
    (SELECT id FROM memories_memory WHERE agent_id = %(agent)s
     ORDER BY embedding <=> %(query)s::vector LIMIT %(n_relevant)s)
    UNION
    (SELECT id FROM memories_memory WHERE agent_id = %(agent)s
     ORDER BY last_accessed DESC LIMIT %(n_recent)s)
    UNION
    (SELECT id FROM memories_memory WHERE agent_id = %(agent)s
     ORDER BY importance DESC, last_accessed DESC LIMIT %(n_important)s)
),
s AS ({_TERMS} JOIN c ON c.id = m.id),
far AS (SELECT 1 - (embedding <=> %(query)s::vector) AS rel FROM memories_memory
        WHERE agent_id = %(agent)s ORDER BY embedding <=> %(anti)s::vector LIMIT 1),
lim AS (SELECT min(last_accessed) a0, max(last_accessed) a1,
               min(importance)::float8 i0, max(importance)::float8 i1
        FROM memories_memory WHERE agent_id = %(agent)s),
b AS (SELECT power(%(decay)s::float8,
                   greatest(extract(epoch FROM (%(now)s::timestamptz - lim.a0)), 0) / 3600.0) r0,
             power(%(decay)s::float8,
                   greatest(extract(epoch FROM (%(now)s::timestamptz - lim.a1)), 0) / 3600.0) r1,
             lim.i0, lim.i1,
             least((SELECT min(rel) FROM s), (SELECT rel FROM far)) v0,
             (SELECT max(rel) FROM s) v1
      FROM lim)
{_SCORE}
"""


def memories_retrieve(
    *,
    agent_id: int,
    query_embedding: np.ndarray,
    now: datetime,
    decay: float = 0.995,
    weights: Weights = PRESETS["paper"],
    k: int = 10,
    mode: Mode = Mode.EXACT,
    candidates: int = 200,
    ef_search: int = 200,
    exclude_kinds: Sequence[str] = (),
) -> list[Scored]:
    """The agent's top-k memories for a query. Reads only: callers record the touch."""
    query = np.asarray(query_embedding, dtype=np.float32)
    params: dict[str, Any] = {
        "agent": agent_id,
        "query": vector_literal(query),
        "anti": vector_literal(-query),
        "now": now,
        "decay": decay,
        "w_rec": weights.recency,
        "w_imp": weights.importance,
        "w_rel": weights.relevance,
        "k": k,
        "exclude": list(exclude_kinds),
        "n_relevant": max(candidates, k),
        "n_recent": max(candidates // 2, k),
        "n_important": max(candidates // 2, k),
    }
    with transaction.atomic(), connection.cursor() as cursor:
        if mode == Mode.SCALE:
            if exclude_kinds:
                raise ValueError("scale mode does not filter by kind; use exact mode")
            # SET LOCAL only lasts for this transaction, which holds the query.
            cursor.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
            cursor.execute(f"SET LOCAL hnsw.ef_search = {int(ef_search)}")
            cursor.execute(SCALE_SQL, params)
        else:
            cursor.execute(EXACT_SQL, params)
        rows = cursor.fetchall()
    return [Scored(r[0], r[1], r[2], r[3], r[4], r[5]) for r in rows]


def memory_rows(scored: list[Scored]) -> list[Memory]:
    """The Memory rows of a retrieval, in rank order."""
    by_id = Memory.objects.in_bulk([s.memory_id for s in scored])
    return [by_id[s.memory_id] for s in scored]
