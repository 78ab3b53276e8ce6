"""The retrieval bench's data: its spec (full or quick), the generator's constants and
fingerprint, and the synthetic memories and queries (embeddings with topic structure)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import numpy as np


@dataclass(frozen=True)
class Spec:
    database: str
    singles: tuple[int, ...]  # memories of each single agent
    town_agents: int
    town_memories: int  # per agent of the town
    queries: int  # per single agent
    town_queries_per_agent: int
    reference_queries: dict[str, int]  # per data set; the loop is slow


FULL = Spec(
    database="smallville_bench",
    singles=(1_000, 10_000, 100_000),
    town_agents=100,
    town_memories=10_000,
    queries=80,
    town_queries_per_agent=1,
    reference_queries={"1k": 20, "10k": 10, "100k": 3, "town": 10},
)
QUICK = Spec(
    database="smallville_bench_quick",
    singles=(1_000, 10_000),
    town_agents=20,
    town_memories=2_000,
    queries=20,
    town_queries_per_agent=1,
    reference_queries={"1k": 5, "10k": 2, "town": 5},
)

SEED = 20230413
DIM = 384
THEMES = 32
TOPICS = 384
TOPIC_SPREAD = 0.9  # topic = theme + this much noise: topics of a theme have cosine ~0.55
AGENT_TOPICS = 40
ROUTINE_TOPICS = 3
ROUTINE_SHARE = 0.25
ROUTINE_NOISE = 0.3  # near-duplicates: cosine ~0.9 among themselves
MEMORY_NOISE = (0.7, 1.3)  # cosine to the topic 0.6..0.8
QUERY_NOISE = 0.7
ROUTINE_QUERIES = 0.2
IMPORTANCE_P = (0.03, 0.17, 0.25, 0.22, 0.13, 0.08, 0.05, 0.04, 0.02, 0.01)
ROUTINE_IMPORTANCE_P = (0.3, 0.5, 0.2, 0, 0, 0, 0, 0, 0, 0)
SPAN_HOURS = 14 * 24
REACCESSED = 0.3  # share of memories retrieved (touched) again after creation
START = datetime(2023, 2, 13, tzinfo=UTC)
NOW = START + timedelta(hours=SPAN_HOURS)
DECAY = 0.995
K = 10
PG_EPOCH = datetime(2000, 1, 1, tzinfo=UTC)
CHUNK_ROWS = 50_000
FETCH_ROWS = 2_000_000  # rows the NumPy fetch timing may read per data set
# Everything that shapes the data; a change makes the next run reload.
FINGERPRINT = {
    "version": 2,
    "town_rows": "interleaved by creation time",
    "seed": SEED,
    "dim": DIM,
    "themes": THEMES,
    "topics": TOPICS,
    "spread": TOPIC_SPREAD,
    "agent_topics": AGENT_TOPICS,
    "routine": [ROUTINE_TOPICS, ROUTINE_SHARE, ROUTINE_NOISE],
    "noise": list(MEMORY_NOISE),
    "importance": [IMPORTANCE_P, ROUTINE_IMPORTANCE_P],
    "span_hours": SPAN_HOURS,
    "reaccessed": REACCESSED,
}


# --- synthetic memories -------------------------------------------------------------


def _unit(x: np.ndarray) -> np.ndarray:
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def _topics() -> np.ndarray:
    rng = np.random.default_rng([SEED, 0])
    themes = _unit(rng.normal(size=(THEMES, DIM)))
    parent = rng.integers(THEMES, size=TOPICS)
    return _unit(themes[parent] + TOPIC_SPREAD * _unit(rng.normal(size=(TOPICS, DIM))))


@dataclass
class AgentData:
    embeddings: np.ndarray  # (n, DIM) float32, unit
    importance: np.ndarray  # (n,) int16
    created_us: np.ndarray  # (n,) int64, microseconds since 2000-01-01 UTC
    accessed_us: np.ndarray

    @staticmethod
    def fields() -> tuple[str, ...]:
        return ("embeddings", "importance", "created_us", "accessed_us")


def _agent_topics(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    chosen = rng.choice(TOPICS, size=AGENT_TOPICS + ROUTINE_TOPICS, replace=False)
    weights = 1.0 / np.arange(1, AGENT_TOPICS + 1)
    return chosen[:AGENT_TOPICS], weights / weights.sum(), chosen[AGENT_TOPICS:]


def _agent_data(topics: np.ndarray, key: int, n: int) -> AgentData:
    """An agent's memories, from its own seed (key) so any agent can be regenerated."""
    rng = np.random.default_rng([SEED, 1, key])
    own, weights, routine = _agent_topics(rng)
    is_routine = rng.random(n) < ROUTINE_SHARE
    topic = np.where(is_routine, rng.choice(routine, size=n), rng.choice(own, size=n, p=weights))
    noise = np.where(is_routine, ROUTINE_NOISE, rng.uniform(*MEMORY_NOISE, size=n))
    gauss = rng.normal(size=(n, DIM)) / math.sqrt(DIM)
    embeddings = _unit(topics[topic] + noise[:, None] * gauss).astype(np.float32)
    importance = (
        np.where(
            is_routine,
            rng.choice(10, size=n, p=ROUTINE_IMPORTANCE_P),
            rng.choice(10, size=n, p=IMPORTANCE_P),
        ).astype(np.int16)
        + 1
    )
    created_h = np.sort(rng.uniform(0, SPAN_HOURS, size=n))
    touched = rng.random(n) < REACCESSED
    accessed_h = created_h + touched * rng.random(n) * (SPAN_HOURS - created_h)
    start_us = int((START - PG_EPOCH).total_seconds() * 1e6)
    return AgentData(
        embeddings=embeddings,
        importance=importance,
        created_us=start_us + (created_h * 3.6e9).astype(np.int64),
        accessed_us=start_us + (accessed_h * 3.6e9).astype(np.int64),
    )


def _queries(topics: np.ndarray, key: int, count: int) -> list[np.ndarray]:
    rng = np.random.default_rng([SEED, 1, key])  # the same topics as the agent's memories
    own, weights, routine = _agent_topics(rng)
    rng = np.random.default_rng([SEED, 2, key])
    out = []
    for _ in range(count):
        topic = (
            rng.choice(routine) if rng.random() < ROUTINE_QUERIES else rng.choice(own, p=weights)
        )
        gauss = rng.normal(size=DIM) / math.sqrt(DIM)
        out.append(_unit(topics[topic] + QUERY_NOISE * gauss).astype(np.float32))
    return out
