"""Retrieval as the paper defines it: recency, importance and relevance, min-max normalised.

    score = w_rec * norm(decay ** hours_since_last_access)
          + w_imp * norm(importance)
          + w_rel * norm(cosine(memory, query))

`norm` is min-max over the agent's memories (a constant term normalises to 0.5, as in the
reference code). Exact mode scores every memory of the agent in one SQL statement.

Scale mode gives the same answer as exact mode for an agent with up to
SCALE_EXACT_UP_TO memories, where scoring them all is cheapest. For a larger memory
stream it bounds the work. A seed (the agent's most relevant memories by HNSW, pgvector
iterative scan filtered to the agent, plus its most recent and most important ones) is
scored; its k-th best score is a floor, and relevance adds at most its weight, so only
a memory whose recency and importance terms reach the floor less that weight can enter
the top k. Those are found by one index range scan per importance level (agent,
importance, last_accessed) and scored too. Recency and importance bounds come exactly
from indexes; the largest and smallest cosine from the memories scored, which is where
the answer can differ from exact mode (the exact ones need every memory). The HNSW scan
is capped (HNSW_SCAN_BUDGET tuples): one index serves every agent, so an agent holding 1%
of it has ~1 in 100 tuples near a query. When the cap stops it before it finds any of
the agent's memories, the largest cosine is unknown and scale mode scores every memory.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from contextlib import nullcontext
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


def _recency(column: str) -> str:
    # date_part, not extract: extract() of an interval is numeric, twice as slow per row.
    return (
        "power(%(decay)s::float8, greatest(date_part('epoch', "
        f"%(now)s::timestamptz - {column}), 0) / 3600.0)"
    )


# Raw terms for one agent's memories; $-free so the same text serves both modes.
_TERMS = f"""
    SELECT m.id, m.number, m.importance::float8 AS imp, {_recency("m.last_accessed")} AS rec,
           1 - (m.embedding <=> %(query)s::vector) AS rel
    FROM memories_memory m
"""


def _score(row: str, bounds: str) -> str:
    """The weighted sum of the min-max normalised terms of `row` under `bounds`."""

    def term(weight: str, value: str, low: str, high: str) -> str:
        low, high = f"{bounds}.{low}", f"{bounds}.{high}"
        return f"%({weight})s * coalesce(({row}.{value} - {low}) / nullif({high} - {low}, 0), 0.5)"

    return " + ".join(
        [
            term("w_rec", "rec", "r0", "r1"),
            term("w_imp", "imp", "i0", "i1"),
            term("w_rel", "rel", "v0", "v1"),
        ]
    )


_SCORE = f"""
    SELECT s.id, s.number, s.rec, s.imp, s.rel, {_score("s", "b")} AS score
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

# Scale mode for a large memory stream (see the module docstring). Every CTE is
# MATERIALIZED so each is computed once, in this order.
SCALE_SQL = f"""
WITH near AS MATERIALIZED (
    -- "+ 0" keeps the planner off the agent's btree, which would score every memory.
    SELECT id FROM memories_memory WHERE agent_id + 0 = %(agent)s
    ORDER BY embedding <=> %(query)s::vector LIMIT %(n_relevant)s),
seed AS MATERIALIZED ({_TERMS} WHERE m.id IN (
    SELECT id FROM near
    UNION ALL
    (SELECT id FROM memories_memory WHERE agent_id = %(agent)s
     ORDER BY last_accessed DESC LIMIT %(n_recent)s)
    UNION ALL
    (SELECT id FROM memories_memory WHERE agent_id = %(agent)s
     ORDER BY importance DESC, last_accessed DESC LIMIT %(n_important)s))),
lim AS MATERIALIZED (
    SELECT min(last_accessed) a0, max(last_accessed) a1,
           min(importance)::float8 i0, max(importance)::float8 i1
    FROM memories_memory WHERE agent_id = %(agent)s),
b0 AS MATERIALIZED (
    SELECT {_recency("lim.a0")} r0, {_recency("lim.a1")} r1, lim.i0, lim.i1,
           (SELECT min(rel) FROM seed) v0, (SELECT max(rel) FROM seed) v1
    FROM lim),
floor AS MATERIALIZED (
    -- What recency + importance must reach: the k-th best seed score less the most
    -- relevance can add. (The last HNSW candidate's relevance would bound the others
    -- tighter, were an iterative scan's candidates surely the nearest; they are not.)
    SELECT coalesce((SELECT {_score("seed", "b0")} AS score FROM seed, b0
                     ORDER BY score DESC OFFSET %(k)s - 1 LIMIT 1), '-infinity')
         - %(w_rel)s - 1e-9 AS t
    FROM b0),
levels AS MATERIALIZED (
    -- Per importance level, the last access from which a memory reaches the floor.
    SELECT lvl, CASE
        WHEN %(w_rec)s = 0 OR b0.r1 = b0.r0 THEN  -- recency adds a constant
            CASE WHEN %(w_rec)s * 0.5 + x.imp >= floor.t THEN '-infinity'::timestamptz
                 ELSE 'infinity'::timestamptz END
        WHEN floor.t - x.imp <= 0 THEN '-infinity'::timestamptz
        WHEN floor.t - x.imp > %(w_rec)s THEN 'infinity'::timestamptz
        ELSE %(now)s::timestamptz - interval '1 hour'
             * (ln(b0.r0 + (floor.t - x.imp) / %(w_rec)s * (b0.r1 - b0.r0))
                / ln(%(decay)s::float8))
        END AS cutoff
    FROM b0, floor, generate_series(b0.i0::int, b0.i1::int) lvl,
         LATERAL (SELECT %(w_imp)s * coalesce((lvl - b0.i0) / nullif(b0.i1 - b0.i0, 0), 0.5)
                  AS imp) x),
s AS MATERIALIZED (
    SELECT * FROM seed
    UNION ALL
    SELECT x.* FROM levels CROSS JOIN LATERAL (
        {_TERMS}
        WHERE m.agent_id = %(agent)s AND m.importance = levels.lvl
          AND m.last_accessed >= levels.cutoff
        OFFSET 0) x  -- OFFSET 0: one index range scan per level, not a join over all
    WHERE levels.cutoff < 'infinity' AND x.id NOT IN (SELECT id FROM seed)),
b AS (SELECT r0, r1, i0, i1, least(v0, (SELECT min(rel) FROM s)) v0,
             greatest(v1, (SELECT max(rel) FROM s)) v1 FROM b0)
SELECT *, (SELECT count(*) FROM near) AS found FROM ({_SCORE}) top
ORDER BY top.score DESC, top.number DESC
"""

# Up to this many memories scale mode scores them all (exact mode's statement); above,
# the bounded search costs less. `python -m bench retrieval`, p50 exact vs bounded: 1k
# memories 2.5 vs 18 ms; 10k 15 vs 18 (one agent's rows together), 46 vs 38 (a town's
# agents' rows interleaved; 44 vs 12 once in shared buffers); 100k 138 vs 24.
SCALE_EXACT_UP_TO = 5_000
# The most recent and the most important memories seeding the bounded search (each).
SEED_PER_LIST = 100
# Tuples the HNSW scan may visit, of every agent; it stops there (hnsw.max_scan_tuples).
# bench.retrieval, town of 1M over 100 agents: 2,000 gave p95 18 ms, recall@10 0.986;
# 1,000 gives 14.8 ms and 0.984 (~10 of the agent's memories among them).
HNSW_SCAN_BUDGET = 1_000


def memories_retrieve(
    *,
    agent_id: int,
    query_embedding: np.ndarray,
    now: datetime,
    decay: float = 0.995,
    weights: Weights = PRESETS["paper"],
    k: int = 10,
    mode: Mode = Mode.EXACT,
    candidates: int = 40,
    ef_search: int = 40,
    exclude_kinds: Sequence[str] = (),
) -> list[Scored]:
    """The agent's top-k memories for a query. Reads only: callers record the touch."""
    query = np.asarray(query_embedding, dtype=np.float32)
    params: dict[str, Any] = {
        "agent": agent_id,
        "query": vector_literal(query),
        "now": now,
        "decay": decay,
        "w_rec": weights.recency,
        "w_imp": weights.importance,
        "w_rel": weights.relevance,
        "k": k,
        "exclude": list(exclude_kinds),
        "n_relevant": max(candidates, k),
        "n_recent": max(SEED_PER_LIST, k),
        "n_important": max(SEED_PER_LIST, k),
    }
    if mode == Mode.SCALE and exclude_kinds:
        raise ValueError("scale mode does not filter by kind; use exact mode")
    # Scale mode's SET LOCALs need a transaction of their own; exact mode is one statement.
    with (
        transaction.atomic() if mode == Mode.SCALE else nullcontext(),
        connection.cursor() as cursor,
    ):
        rows = None
        if mode == Mode.SCALE and _memory_count_above(cursor, agent_id, SCALE_EXACT_UP_TO):
            rows = _bounded_search(cursor, params, decay=decay, ef_search=ef_search)
        if rows is None:
            cursor.execute(EXACT_SQL, params)
            rows = cursor.fetchall()
    return [Scored(r[0], r[1], r[2], r[3], r[4], r[5]) for r in rows]


def _bounded_search(
    cursor: Any, params: dict[str, Any], *, decay: float, ef_search: int
) -> list[Any] | None:
    """Scale mode's bounded search; None when the HNSW scan found none of the agent's
    memories within its budget."""
    if not 0 < decay <= 1:
        raise ValueError(f"scale mode needs 0 < decay <= 1, got {decay}")
    # SET LOCAL only lasts for this transaction, which holds the query.
    ef = min(max(int(ef_search), params["n_relevant"]), 1000)  # pgvector's maximum
    cursor.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
    cursor.execute(f"SET LOCAL hnsw.ef_search = {ef}")
    cursor.execute(f"SET LOCAL hnsw.max_scan_tuples = {int(HNSW_SCAN_BUDGET)}")
    cursor.execute(SCALE_SQL, params)
    rows = cursor.fetchall()
    if not rows or rows[0][-1] == 0:
        return None
    return rows


def _memory_count_above(cursor: Any, agent_id: int, limit: int) -> bool:
    # Numbers count an agent's memories from 1, so the largest is an index probe away.
    cursor.execute("SELECT max(number) FROM memories_memory WHERE agent_id = %s", [agent_id])
    (largest,) = cursor.fetchone()
    return largest is not None and largest > limit


def memory_rows(scored: list[Scored]) -> list[Memory]:
    """The Memory rows of a retrieval, in rank order."""
    by_id = Memory.objects.in_bulk([s.memory_id for s in scored])
    return [by_id[s.memory_id] for s in scored]
