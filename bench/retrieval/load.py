"""Loading the retrieval bench's data: the simulations and agents through the ORM, their
memories by a binary COPY (indexes dropped, then rebuilt); whether the data is present."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.contrib.auth.models import User
from django.db import connection

from bench.retrieval.data import (
    CHUNK_ROWS,
    DIM,
    FINGERPRINT,
    START,
    AgentData,
    Spec,
    _agent_data,
)
from world.models import Agent, Simulation, Town

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


def _datasets(spec: Spec) -> list[Dataset]:
    singles = Simulation.objects.get(name="bench singles")
    town = Simulation.objects.get(name="bench town")
    by_name = {a.name: a.pk for a in Agent.objects.filter(simulation__in=[singles, town])}
    out = [Dataset(_label(n), singles.pk, [(by_name[f"Single {n}"], n)], n) for n in spec.singles]
    town_agents = [(by_name[f"Townsperson {i:03d}"], 10**7 + i) for i in range(spec.town_agents)]
    out.append(Dataset("town", town.pk, town_agents, spec.town_memories))
    return out


def _label(n: int) -> str:
    return f"{n // 1000}k"


def _present(spec: Spec) -> bool:
    """Whether the bench data of this fingerprint is loaded, counts and indexes complete."""
    fingerprint = {"fingerprint": FINGERPRINT, "spec": spec.database}
    names = ["bench singles", "bench town"]
    sims = Simulation.objects.filter(name__in=names, config__bench=fingerprint)
    if sims.count() != 2:
        return False
    expected = {f"Single {n}": n for n in spec.singles}
    expected |= {f"Townsperson {i:03d}": spec.town_memories for i in range(spec.town_agents)}
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


def _load(spec: Spec, topics: np.ndarray) -> dict[str, Any]:
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
    config = {"bench": {"fingerprint": FINGERPRINT, "spec": spec.database}}

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

    simulation("bench singles", [f"Single {n}" for n in spec.singles])
    simulation("bench town", [f"Townsperson {i:03d}" for i in range(spec.town_agents)])
    datasets = _datasets(spec)
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
