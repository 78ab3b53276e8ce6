"""The retrieval bench's timed runs: exact and scale mode (wall and server CPU time,
recall against exact), the NumPy brute force and the reference loop, per data set."""

from __future__ import annotations

import functools
import math
import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from django.db import connection

from bench.retrieval.contenders import (
    WEIGHTS,
    Fetched,
    Node,
    numpy_fetch,
    numpy_retrieve,
    reference_memory,
    reference_retrieve,
)
from bench.retrieval.data import DECAY, FETCH_ROWS, NOW, K, Spec, _queries
from bench.retrieval.load import Dataset
from memories import retrieval
from memories.retrieval import Mode, memories_retrieve


def _ms(seconds: list[float]) -> dict[str, Any]:
    ms = sorted(s * 1e3 for s in seconds)
    return {
        "n": len(ms),
        "p50_ms": round(statistics.median(ms), 2),
        "p95_ms": round(ms[max(math.ceil(0.95 * len(ms)) - 1, 0)], 2),
        "mean_ms": round(statistics.fmean(ms), 2),
    }


def _workload(spec: Spec, dataset: Dataset, topics: np.ndarray) -> list[tuple[int, np.ndarray]]:
    """(agent id, query) pairs: spec.queries for a single agent, a few per townsperson."""
    per_agent = spec.queries if len(dataset.agents) == 1 else spec.town_queries_per_agent
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


def _measure(spec: Spec, dataset: Dataset, topics: np.ndarray) -> dict[str, Any]:
    work = _workload(spec, dataset, topics)
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
    result["reference_loop"] = _measure_reference(spec, dataset, work, exact.results)
    return result


def _measure_reference(
    spec: Spec, dataset: Dataset, work: list[tuple[int, np.ndarray]], exact: list[list[Any]]
) -> dict[str, Any]:
    count = spec.reference_queries.get(dataset.label, 0)
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
