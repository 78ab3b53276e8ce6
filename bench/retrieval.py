"""Memory retrieval at scale: `python -m bench.retrieval [--quick]` prints one JSON object.

Data. A database of its own (`smallville_bench`, or `smallville_bench_quick`) on the
embedded server, so the dev database and the tests are untouched. One simulation holds
three agents of 1k, 10k and 100k memories, another a town of 100 agents with 10k each
(1M); all 1.11M memories share the one HNSW index, as they would in production. A single
agent's rows are written one after another; the town's interleaved by creation time, as
a simulation writes them, so one townsperson's memories spread over ~4x as many pages.
The bench writes the rows itself (Simulation and Agent rows through the ORM, memories by
a binary COPY) because seeding 1.1M memories through the event log and the embedder
would take hours; it is a bench, not product code. Later runs reuse the data when its
fingerprint and counts match (`--reload` rebuilds it); the first full run spends ~15 min
loading, most of it building the HNSW index.

Embeddings are synthetic with semantic-like structure (real ones run at ~75 texts/s):
384 topics grouped under 32 themes; each agent writes about 40 topics with Zipf-like
weights plus 3 routine topics of near-duplicates ("the bed is idle"). Importance is
1..10, mostly 2-5; last access spreads over two sim weeks. Queries are drawn near the
agent's topics (one in five near a routine topic).

Measured, per data set and on the same queries: `memories_retrieve` in exact and scale
mode (wall latency, CPU time of the database backend, recall@10 of scale against exact;
where scale mode scores the agent's memories in full, its bounded search is measured
too, forced); a NumPy brute force of the same formula, "compute only" (arrays in memory)
and "fetch + compute" (a binary COPY of the agent's embeddings, importance and last
access, then compute); and a straight Python port of the reference implementation's loop
over memories (retrieve.py `new_retrieve`). Other processes may share the machine: the
report gives the load average, and server CPU time is the number they inflate least.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import os
import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import django
import numpy as np
import psycopg
from numpy import dot
from numpy.linalg import norm

from bench.machine import stamp
from smallville_project import embedded_db


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


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.retrieval", description=__doc__)
    parser.add_argument(
        "--quick", action="store_true", help="small data and few queries (smoke test)"
    )
    parser.add_argument("--reload", action="store_true", help="rebuild the data even if present")
    return parser.parse_args()


def _with_database(url: str, name: str) -> str:
    return urlparse(url)._replace(path=f"/{name}").geturl()


def _bench_database(name: str) -> str:
    """The URL of the bench database on the embedded server, created if missing."""
    server = embedded_db.ensure_running()
    with psycopg.connect(server, autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone() is None:
            conn.execute(f'CREATE DATABASE "{name}"')
    return _with_database(server, name)


ARGS = _arguments()
SPEC = QUICK if ARGS.quick else FULL
# Before django.setup(): with DATABASE_URL set the settings use it as is.
os.environ["DATABASE_URL"] = _bench_database(SPEC.database)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "smallville_project.settings")
django.setup()

from django.contrib.auth.models import User  # noqa: E402 - needs django.setup()
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402

from memories import retrieval  # noqa: E402
from memories.retrieval import PRESETS, Mode, memories_retrieve  # noqa: E402
from world.models import (  # noqa: E402
    Agent,
    Simulation,
    Town,
)

WEIGHTS = PRESETS["paper"]


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


# --- loading --------------------------------------------------------------------------

COPY_COLUMNS = (
    "simulation_id, agent_id, number, kind, description, subject, predicate, object, "
    "created, last_accessed, importance, embedding, depth"
)
DESCRIPTION = "bench memory {agent:07d}-{number:07d}"
DESCRIPTION_LEN = len(DESCRIPTION.format(agent=0, number=0))
KIND = b"observation"
# One row of PostgreSQL's binary COPY format: every field is fixed-width here (the
# three empty strings are a length of 0), so a whole batch is one NumPy record array.
ROW = np.dtype(
    [
        ("fields", ">i2"),
        ("l_sim", ">i4"),
        ("sim", ">i8"),
        ("l_agent", ">i4"),
        ("agent", ">i8"),
        ("l_number", ">i4"),
        ("number", ">i4"),
        ("l_kind", ">i4"),
        ("kind", f"S{len(KIND)}"),
        ("l_description", ">i4"),
        ("description", f"S{DESCRIPTION_LEN}"),
        ("l_subject", ">i4"),
        ("l_predicate", ">i4"),
        ("l_object", ">i4"),
        ("l_created", ">i4"),
        ("created", ">i8"),
        ("l_accessed", ">i4"),
        ("accessed", ">i8"),
        ("l_importance", ">i4"),
        ("importance", ">i2"),
        ("l_embedding", ">i4"),
        ("dim", ">i2"),
        ("unused", ">i2"),
        ("embedding", ">f4", (DIM,)),
        ("l_depth", ">i4"),
        ("depth", ">i2"),
    ]
)
COPY_HEADER = b"PGCOPY\n\xff\r\n\x00" + (0).to_bytes(4, "big") + (0).to_bytes(4, "big")
COPY_TRAILER = (-1).to_bytes(2, "big", signed=True)


@dataclass(frozen=True)
class Dataset:
    label: str
    simulation_id: int
    agents: list[tuple[int, int]]  # (agent id, seed key)
    memories_per_agent: int


def _copy_rows(
    simulation_id: int, agents: np.ndarray, numbers: np.ndarray, data: AgentData
) -> bytes:
    """Rows in PostgreSQL's binary COPY format; agents and numbers are per row."""
    rows = np.zeros(len(numbers), dtype=ROW)
    rows["fields"] = 13
    for name, size in (("sim", 8), ("agent", 8), ("number", 4), ("created", 8)):
        rows[f"l_{name}"] = size
    rows["l_kind"], rows["l_description"] = len(KIND), DESCRIPTION_LEN
    rows["l_accessed"], rows["l_importance"], rows["l_depth"] = 8, 2, 2
    rows["l_embedding"], rows["dim"] = 4 + 4 * DIM, DIM
    rows["sim"], rows["agent"], rows["number"] = simulation_id, agents, numbers
    rows["kind"] = KIND
    rows["description"] = [
        DESCRIPTION.format(agent=int(a), number=int(i)).encode()
        for a, i in zip(agents, numbers, strict=True)
    ]
    rows["created"], rows["accessed"] = data.created_us, data.accessed_us
    rows["importance"] = data.importance
    rows["embedding"] = data.embeddings
    return rows.tobytes()


def _chunks(
    dataset: Dataset, topics: np.ndarray
) -> Iterator[tuple[np.ndarray, np.ndarray, AgentData]]:
    """(agent ids, numbers, data) in the order a simulation would have written them: a
    single agent's memories one after another; the town's interleaved by creation time,
    as its agents remember side by side (so one agent's rows spread over many pages)."""
    n = dataset.memories_per_agent
    streams = [(agent_id, _agent_data(topics, key, n)) for agent_id, key in dataset.agents]
    agents = np.repeat([agent_id for agent_id, _ in streams], n)
    numbers = np.tile(np.arange(1, n + 1), len(streams))
    data = AgentData(
        *(np.concatenate([getattr(d, f) for _, d in streams]) for f in AgentData.fields())
    )
    del streams
    order = np.argsort(data.created_us, kind="stable")
    for first in range(0, len(order), CHUNK_ROWS):
        part = order[first : first + CHUNK_ROWS]
        yield (
            agents[part],
            numbers[part],
            AgentData(*(getattr(data, f)[part] for f in AgentData.fields())),
        )


def _secondary_indexes(cursor: Any) -> list[tuple[str, str]]:
    """Indexes of the memory table that back no constraint: dropped while loading."""
    cursor.execute(
        """
        SELECT c.relname, pg_get_indexdef(c.oid) FROM pg_index x
        JOIN pg_class c ON c.oid = x.indexrelid
        WHERE x.indrelid = 'memories_memory'::regclass
          AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = x.indexrelid)
        ORDER BY c.relname
        """
    )
    return list(cursor.fetchall())


def _datasets() -> list[Dataset]:
    singles = Simulation.objects.get(name="bench singles")
    town = Simulation.objects.get(name="bench town")
    by_name = {a.name: a.pk for a in Agent.objects.filter(simulation__in=[singles, town])}
    out = [Dataset(_label(n), singles.pk, [(by_name[f"Single {n}"], n)], n) for n in SPEC.singles]
    town_agents = [(by_name[f"Townsperson {i:03d}"], 10**7 + i) for i in range(SPEC.town_agents)]
    out.append(Dataset("town", town.pk, town_agents, SPEC.town_memories))
    return out


def _label(n: int) -> str:
    return f"{n // 1000}k"


def _present() -> bool:
    """Whether the bench data of this fingerprint is loaded, counts and indexes complete."""
    fingerprint = {"fingerprint": FINGERPRINT, "spec": SPEC.database}
    names = ["bench singles", "bench town"]
    sims = Simulation.objects.filter(name__in=names, config__bench=fingerprint)
    if sims.count() != 2:
        return False
    expected = {f"Single {n}": n for n in SPEC.singles}
    expected |= {f"Townsperson {i:03d}": SPEC.town_memories for i in range(SPEC.town_agents)}
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT a.name, count(m.id) FROM agents_agent a
            LEFT JOIN memories_memory m ON m.agent_id = a.id
            GROUP BY a.name
            """
        )
        counts = dict(cursor.fetchall())
        cursor.execute(
            """
            SELECT count(*) FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid
            WHERE c.relname = 'memory_embedding_hnsw' AND x.indisvalid
            """
        )
        (hnsw,) = cursor.fetchone()
        cursor.execute("SELECT count(*) FROM memories_memory")
        (total,) = cursor.fetchone()
    return counts == expected and hnsw == 1 and total == sum(expected.values())


def _load(topics: np.ndarray) -> dict[str, Any]:
    """Wipe the bench database's simulations and load the data; timings of each phase."""
    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE memories_memory, agents_agent, world_simulation CASCADE")
    owner, _ = User.objects.get_or_create(username="bench")
    town, _ = Town.objects.get_or_create(
        name="bench-town",
        defaults=dict(
            world_name="Bench",
            width=1,
            height=1,
            meta_source="{}",
            collision=[0],
            sector_layer=[0],
            arena_layer=[0],
            game_object_layer=[0],
            spawning_layer=[0],
        ),
    )
    config = {"bench": {"fingerprint": FINGERPRINT, "spec": SPEC.database}}

    def simulation(name: str, people: list[str]) -> Simulation:
        sim = Simulation.objects.create(
            owner=owner, name=name, town=town, base="bench", start_time=START, config=config
        )
        Agent.objects.bulk_create(
            Agent(
                simulation=sim,
                name=p,
                first_name=p.split()[0],
                last_name=p.split()[1],
                tile_x=0,
                tile_y=0,
            )
            for p in people
        )
        return sim

    simulation("bench singles", [f"Single {n}" for n in SPEC.singles])
    simulation("bench town", [f"Townsperson {i:03d}" for i in range(SPEC.town_agents)])
    datasets = _datasets()
    with connection.cursor() as cursor:
        pg = cursor.cursor  # the psycopg cursor, for COPY
        indexes = _secondary_indexes(pg)
        for name, _ in indexes:
            pg.execute(f'DROP INDEX "{name}"')
        started = time.perf_counter()
        rows = 0
        for dataset in datasets:
            for agents, numbers, part in _chunks(dataset, topics):
                payload = _copy_rows(dataset.simulation_id, agents, numbers, part)
                with pg.copy(f"COPY memories_memory ({COPY_COLUMNS}) FROM STDIN BINARY") as copy:
                    copy.write(COPY_HEADER)
                    copy.write(payload)
                    copy.write(COPY_TRAILER)
                rows += len(numbers)
        copy_s = time.perf_counter() - started
        started = time.perf_counter()
        for name, definition in indexes:
            if name != "memory_embedding_hnsw":
                pg.execute(definition)
        btree_s = time.perf_counter() - started
        pg.execute("SET maintenance_work_mem = '4GB'")
        pg.execute("SET max_parallel_maintenance_workers = 2")
        started = time.perf_counter()
        for name, definition in indexes:
            if name == "memory_embedding_hnsw":
                pg.execute(definition)
        hnsw_s = time.perf_counter() - started
        pg.execute("RESET maintenance_work_mem")
        pg.execute("RESET max_parallel_maintenance_workers")
        started = time.perf_counter()
        pg.execute("VACUUM (ANALYZE) memories_memory")  # hint bits, visibility map, stats
        vacuum_s = time.perf_counter() - started
    return {
        "rows": rows,
        "copy_s": round(copy_s, 1),
        "btree_indexes_s": round(btree_s, 1),
        "hnsw_index_s": round(hnsw_s, 1),
        "vacuum_analyze_s": round(vacuum_s, 1),
    }


# --- the contenders -------------------------------------------------------------------


@dataclass
class Fetched:
    embeddings: np.ndarray  # float32 (n, DIM)
    norms: np.ndarray
    importance: np.ndarray  # float64
    accessed_us: np.ndarray  # int64
    number: np.ndarray


FETCH_ROW = np.dtype(
    [
        ("fields", ">i2"),
        ("l_embedding", ">i4"),
        ("dim", ">i2"),
        ("unused", ">i2"),
        ("embedding", ">f4", (DIM,)),
        ("l_importance", ">i4"),
        ("importance", ">i2"),
        ("l_accessed", ">i4"),
        ("accessed", ">i8"),
        ("l_number", ">i4"),
        ("number", ">i4"),
    ]
)


def numpy_fetch(agent_id: int) -> Fetched:
    """An agent's memories into NumPy: binary COPY parsed as one record array (the
    fastest way out of Postgres; an ORM or row-by-row fetch is several times slower)."""
    sql = (
        "COPY (SELECT embedding, importance, last_accessed, number FROM memories_memory "
        f"WHERE agent_id = {int(agent_id)}) TO STDOUT BINARY"
    )
    with connection.cursor() as cursor, cursor.cursor.copy(sql) as copy:
        payload = b"".join(bytes(chunk) for chunk in copy)
    rows = np.frombuffer(
        payload,
        dtype=FETCH_ROW,
        offset=len(COPY_HEADER),
        count=(len(payload) - len(COPY_HEADER) - 2) // FETCH_ROW.itemsize,
    )
    embeddings = rows["embedding"].astype(np.float32)
    return Fetched(
        embeddings=embeddings,
        norms=np.linalg.norm(embeddings, axis=1),
        importance=rows["importance"].astype(np.float64),
        accessed_us=rows["accessed"].astype(np.int64),
        number=rows["number"].astype(np.int64),
    )


def _minmax(values: np.ndarray) -> np.ndarray:
    low, high = values.min(), values.max()
    return np.full_like(values, 0.5) if high == low else (values - low) / (high - low)


NOW_US = int((NOW - PG_EPOCH).total_seconds() * 1e6)


def numpy_retrieve(data: Fetched, query: np.ndarray, k: int = K) -> tuple[np.ndarray, np.ndarray]:
    """Top-k (numbers, scores) by the paper's formula; ties by number, as in SQL."""
    relevance = (data.embeddings @ query).astype(np.float64) / (data.norms * np.linalg.norm(query))
    hours = np.maximum(NOW_US - data.accessed_us, 0) / 3.6e9
    score = (
        WEIGHTS.recency * _minmax(DECAY**hours)
        + WEIGHTS.importance * _minmax(data.importance)
        + WEIGHTS.relevance * _minmax(relevance)
    )
    k = min(k, len(score))
    top = np.argpartition(-score, k - 1)[:k]
    top = top[np.lexsort((-data.number[top], -score[top]))]
    return data.number[top], score[top]


@dataclass
class Node:
    """A memory as the reference keeps it (ConceptNode): fields, embedding by key."""

    node_id: int
    last_accessed: datetime
    poignancy: int
    embedding_key: str


def reference_memory(data: Fetched) -> tuple[list[Node], dict[str, list[float]]]:
    """The reference's in-memory form: node objects, embeddings as lists (from JSON)."""
    nodes, embeddings = [], {}
    for i in range(len(data.number)):
        key = f"memory {int(data.number[i])}"
        accessed = PG_EPOCH + timedelta(microseconds=int(data.accessed_us[i]))
        nodes.append(Node(int(data.number[i]), accessed, int(data.importance[i]), key))
        embeddings[key] = data.embeddings[i].tolist()
    return nodes, embeddings


def _cos_sim(a: list[float], b: list[float]) -> float:
    return float(dot(a, b) / (norm(a) * norm(b)))  # numpy on lists, per node, as there


def _normalize(values: dict[int, float]) -> dict[int, float]:
    low, high = min(values.values()), max(values.values())
    if high == low:
        return dict.fromkeys(values, 0.5)
    return {key: (v - low) / (high - low) for key, v in values.items()}


def reference_retrieve(
    nodes: list[Node], embeddings: dict[str, list[float]], query: list[float], k: int = K
) -> dict[int, float]:
    """A port of the reference `new_retrieve` for one focal point: loops over nodes
    building one dict per term, min-max normalises them, sums and sorts. Recency is the
    paper's decay per hour since last access (the reference uses decay ** rank), the
    weights are ours, and its debug print of every node is left out."""
    nodes = [n for _, n in sorted(((n.last_accessed, n) for n in nodes), key=lambda p: p[0])]
    recency = {}
    for node in nodes:
        hours = max((NOW - node.last_accessed).total_seconds(), 0) / 3600
        recency[node.node_id] = DECAY**hours
    recency = _normalize(recency)
    importance = _normalize({node.node_id: float(node.poignancy) for node in nodes})
    relevance = _normalize(
        {node.node_id: _cos_sim(embeddings[node.embedding_key], query) for node in nodes}
    )
    master = {
        key: WEIGHTS.recency * recency[key]
        + WEIGHTS.relevance * relevance[key]
        + WEIGHTS.importance * importance[key]
        for key in recency
    }
    master = dict(sorted(master.items(), key=lambda item: item[1], reverse=True))
    return dict(list(master.items())[:k])


# --- measuring ------------------------------------------------------------------------


def _ms(seconds: list[float]) -> dict[str, Any]:
    ms = sorted(s * 1e3 for s in seconds)
    return {
        "n": len(ms),
        "p50_ms": round(statistics.median(ms), 2),
        "p95_ms": round(ms[max(math.ceil(0.95 * len(ms)) - 1, 0)], 2),
        "mean_ms": round(statistics.fmean(ms), 2),
    }


def _workload(dataset: Dataset, topics: np.ndarray) -> list[tuple[int, np.ndarray]]:
    """(agent id, query) pairs: SPEC.queries for a single agent, a few per townsperson."""
    per_agent = SPEC.queries if len(dataset.agents) == 1 else SPEC.town_queries_per_agent
    return [
        (agent_id, query)
        for agent_id, key in dataset.agents
        for query in _queries(topics, key, per_agent)
    ]


def _retrieve(agent_id: int, query: np.ndarray, mode: Mode) -> list[Any]:
    return memories_retrieve(
        agent_id=agent_id,
        query_embedding=query,
        now=NOW,
        decay=DECAY,
        weights=WEIGHTS,
        k=K,
        mode=mode,
    )


@dataclass
class Runs:
    wall: list[float]
    server_cpu: list[float]  # CPU time of the database backend: unlike wall time, not
    results: list[list[Any]]  # inflated when other processes share the cores

    def report(self) -> dict[str, Any]:
        out = _ms(self.wall)
        if self.server_cpu:
            cpu = _ms(self.server_cpu)
            out |= {"server_cpu_p50_ms": cpu["p50_ms"], "server_cpu_p95_ms": cpu["p95_ms"]}
        return out


@functools.cache
def _backend_pid() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return int(cursor.fetchone()[0])


def _server_cpu() -> float | None:
    """Seconds our database backend has run on a CPU (Linux schedstat, in ns)."""
    try:
        return int(Path(f"/proc/{_backend_pid()}/schedstat").read_text().split()[0]) / 1e9
    except (OSError, ValueError, IndexError):
        return None


def _timed_all(work: list[tuple[int, np.ndarray]], mode: Mode) -> Runs:
    runs = Runs([], [], [])
    for agent_id, query in work:
        cpu = _server_cpu()
        started = time.perf_counter()
        runs.results.append(_retrieve(agent_id, query, mode))
        runs.wall.append(time.perf_counter() - started)
        after = _server_cpu()
        if cpu is not None and after is not None:
            runs.server_cpu.append(after - cpu)
    return runs


@contextmanager
def _bounded_search() -> Iterator[None]:
    kept = retrieval.SCALE_EXACT_UP_TO
    retrieval.SCALE_EXACT_UP_TO = 0
    try:
        yield
    finally:
        retrieval.SCALE_EXACT_UP_TO = kept


def _agreement(got: list[list[Any]], exact: list[list[Any]]) -> dict[str, Any]:
    """Recall@k of `got` against exact mode, and the largest difference of a score."""
    recalls = [
        len({s.memory_id for s in g} & {s.memory_id for s in e}) / max(len(e), 1)
        for g, e in zip(got, exact, strict=True)
    ]
    gap = max(
        abs(a.score - b.score)
        for g, e in zip(got, exact, strict=True)
        for a, b in zip(g, e, strict=True)
    )
    return {
        "recall_at_10": round(statistics.fmean(recalls), 4),
        "recall_at_10_min": round(min(recalls), 2),
        "max_score_gap_vs_exact": float(f"{gap:.2e}"),
    }


def _measure(dataset: Dataset, topics: np.ndarray) -> dict[str, Any]:
    work = _workload(dataset, topics)
    for agent_id, query in work[:3]:  # warm the connection, caches and plans
        _retrieve(agent_id, query, Mode.SCALE)
        _retrieve(agent_id, query, Mode.EXACT)
    # Scale before exact, so it does not run on pages exact mode just read for the agent.
    # Up to SCALE_EXACT_UP_TO memories scale mode scores them all; the bounded search it
    # skips is measured too (first), for comparison.
    bounded = None
    if dataset.memories_per_agent <= retrieval.SCALE_EXACT_UP_TO:
        with _bounded_search():
            bounded = _timed_all(work, Mode.SCALE)
    scale = _timed_all(work, Mode.SCALE)
    exact = _timed_all(work, Mode.EXACT)

    # NumPy: fetch + compute per query (within a row budget: a 100k fetch takes seconds),
    # compute only for every query on the arrays last fetched for its agent.
    budget = max(5, FETCH_ROWS // dataset.memories_per_agent)
    fetch_t: list[float] = []
    compute_t: list[float] = []
    fetch_compute: list[float] = []
    numpy_gap = 0.0
    data: Fetched | None = None
    data_agent = None
    for i, ((agent_id, query), want) in enumerate(zip(work, exact.results, strict=True)):
        fetched = None
        if data is None or data_agent != agent_id or i < budget:
            started = time.perf_counter()
            data, data_agent = numpy_fetch(agent_id), agent_id
            fetched = time.perf_counter() - started
            fetch_t.append(fetched)
        started = time.perf_counter()
        _, scores = numpy_retrieve(data, query)
        compute_t.append(time.perf_counter() - started)
        if fetched is not None:
            fetch_compute.append(fetched + compute_t[-1])
        numpy_gap = max(numpy_gap, float(np.max(np.abs(scores - [w.score for w in want]))))

    result: dict[str, Any] = {
        "agents": len(dataset.agents),
        "memories_per_agent": dataset.memories_per_agent,
        "queries": len(work),
        "exact": exact.report(),
        "scale": scale.report()
        | {"path": "scored in full" if bounded else "bounded search"}
        | _agreement(scale.results, exact.results),
        "numpy_compute_only": _ms(compute_t),
        "numpy_fetch_only": _ms(fetch_t),
        "numpy_fetch_compute": _ms(fetch_compute)
        | {
            "max_score_gap_vs_exact": float(f"{numpy_gap:.2e}"),
        },
    }
    if bounded:
        forced = bounded.report() | _agreement(bounded.results, exact.results)
        result["scale_bounded_search_forced"] = forced
    result["reference_loop"] = _measure_reference(dataset, work, exact.results)
    return result


def _measure_reference(
    dataset: Dataset, work: list[tuple[int, np.ndarray]], exact: list[list[Any]]
) -> dict[str, Any]:
    count = SPEC.reference_queries.get(dataset.label, 0)
    if count == 0:
        return {"skipped": True}
    # Spread over the town's agents; the same queries as the other contenders.
    step = max(len(work) // count, 1)
    picked = list(range(0, len(work), step))[:count]
    times, agree = [], 0
    memory: tuple[int, tuple[list[Node], dict[str, list[float]]]] | None = None
    for i in picked:
        agent_id, query = work[i]
        if memory is None or memory[0] != agent_id:
            memory = None  # free the previous agent's lists first
            memory = (agent_id, reference_memory(numpy_fetch(agent_id)))
        nodes, embeddings = memory[1]
        focal = query.tolist()
        started = time.perf_counter()
        top = reference_retrieve(nodes, embeddings, focal)
        seconds = time.perf_counter() - started
        times.append(seconds)
        agree += set(top) == {s.number for s in exact[i]}
    return _ms(times) | {"same_top_10_as_exact": f"{agree}/{len(picked)}"}


# --- report ---------------------------------------------------------------------------


def _server() -> dict[str, Any]:
    names = [
        "server_version",
        "shared_buffers",
        "work_mem",
        "maintenance_work_mem",
        "effective_cache_size",
        "max_parallel_workers_per_gather",
        "jit",
    ]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT name, current_setting(name) FROM pg_settings WHERE name = ANY(%s)", [names]
        )
        settings = dict(cursor.fetchall())
        cursor.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
        settings["pgvector"] = cursor.fetchone()[0]
        cursor.execute(
            "SELECT pg_size_pretty(pg_relation_size('memories_memory')),"
            " pg_size_pretty(pg_relation_size('memory_embedding_hnsw'))"
        )
        settings["table_size"], settings["hnsw_size"] = cursor.fetchone()
    return settings


def _targets(datasets: dict[str, Any]) -> dict[str, Any]:
    big = _label(SPEC.singles[-1])
    exact = datasets[big]["exact"]["p50_ms"]
    fetch = datasets[big]["numpy_fetch_compute"]["p50_ms"]
    compute = datasets[big]["numpy_compute_only"]["p50_ms"]
    town = datasets["town"]["scale"]
    return {
        "exact_p50_vs_numpy": {
            "dataset": big,
            "rule": "exact p50 <= 2 x NumPy fetch + compute p50 (both start from the rows "
            "in Postgres); the ratio to compute only is reported too",
            "ratio_to_fetch_compute": round(exact / fetch, 2),
            "ratio_to_compute_only": round(exact / compute, 2),
            "pass": exact <= 2 * fetch,
            "pass_vs_compute_only": exact <= 2 * compute,
        },
        "scale_town_recall": {
            "rule": "recall@10 >= 0.95",
            "value": town["recall_at_10"],
            "pass": town["recall_at_10"] >= 0.95,
        },
        "scale_town_p95": {
            "rule": "p95 <= 20 ms (wall time, as a caller sees it)",
            "value": town["p95_ms"],
            "pass": town["p95_ms"] <= 20,
            # Not the rule; what the query costs the server, whatever else runs.
            "server_cpu_p95_ms": town.get("server_cpu_p95_ms"),
        },
        "judged_on_full_data": not ARGS.quick,
    }


def main() -> None:
    started = time.perf_counter()
    load_before = os.getloadavg()
    call_command("migrate", verbosity=0)
    topics = _topics()
    reused = _present() and not ARGS.reload
    load = None if reused else _load(topics)
    datasets = {d.label: _measure(d, topics) for d in _datasets()}
    report = {
        **stamp(),
        "server": _server(),
        "mode": "quick" if ARGS.quick else "full",
        "database": SPEC.database,
        "data": {
            "reused": reused,
            "load": load,
            "memories": sum(len(d.agents) * d.memories_per_agent for d in _datasets()),
            "generator": FINGERPRINT,
            "query_noise": QUERY_NOISE,
            "routine_queries": ROUTINE_QUERIES,
        },
        "retrieval": {"k": K, "decay": DECAY, "weights": "paper (1, 1, 1)", "now": NOW.isoformat()},
        "datasets": datasets,
        "targets": _targets(datasets),
        "notes": {
            "exact, scale": "memories_retrieve as a caller sees it (Django cursor, query "
            "literal, one transaction); server_cpu: CPU time of the database backend",
            "scale_bounded_search_forced": "scale mode's bounded search on a data set "
            "small enough for scale mode to score in full",
            "numpy_fetch_compute": "binary COPY of the agent's rows into a record array, "
            "then compute; the fetch dominates",
            "reference_loop": "per-memory Python loop with numpy dot/norm on lists, as in "
            "retrieve.py; recency is the paper's decay per hour",
            "town": "one query per townsperson, each on pages other agents' queries evicted",
        },
        "runtime_s": round(time.perf_counter() - started, 1),
        # Other processes share the 2 cores: the 1-minute load average before and after.
        "load_average": [round(load_before[0], 2), round(os.getloadavg()[0], 2)],
    }
    text = json.dumps(report, indent=2)
    results = Path(__file__).resolve().parent / "results"
    results.mkdir(exist_ok=True)
    (results / ("retrieval_quick.json" if ARGS.quick else "retrieval.json")).write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
