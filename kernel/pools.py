"""The process's thread pools, in one place: every pool's size and purpose is a row of
`POOLS`, and every pool is a `Pool`, which counts its own work (waiting, busy, threads)
instead of reading the executor's private state.

A named pool (`pool`) is made once, when first used, with its row's size; a run's own pool
(`pool_for_run`) lives as long as the run and closes its threads' database connections
when the run ends. Work submitted with `in_own_connection` closes the connections its
thread opened once its pool has nothing waiting, so a pool thread seldom holds one idle.

Threads outside these pools, each because a pool does not fit: the lease keeper
(`world/leases.py`, one daemon loop for the process's whole life), the policy server's
`serve_forever` (`llm/policy_server.py`, a socket server's loop), the benchmarks' clients
and probes (`bench/`), and the Celery workers' own pools (`celery worker --pool=threads`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AbstractContextManager, contextmanager, suppress
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar

from django.conf import settings
from django.db import connection, connections

from kernel.tracing import carried

T = TypeVar("T")
P = ParamSpec("P")


@dataclass(frozen=True)
class PoolSpec:
    """A pool's size (read from the settings when the pool is made) and who uses it."""

    size: Callable[[], int]
    purpose: str


def _ahead_calls() -> int:
    # As many as the engine keeps in flight, or the model server's slots.
    slots = int(settings.SMALLVILLE_LLM_CONCURRENCY or 0)
    return slots or max(8, int(settings.SMALLVILLE_CALLS_IN_FLIGHT))


POOLS: dict[str, PoolSpec] = {
    "agent-step": PoolSpec(
        lambda: int(settings.SMALLVILLE_AGENT_THREADS),
        "the barrier engine: residents of one shard decided at once (a remote model only)",
    ),
    "ahead": PoolSpec(
        lambda: int(settings.SMALLVILLE_CALLS_IN_FLIGHT),
        "the engine that runs residents ahead: a run's decisions and reflections (one pool "
        "per run, `pool_for_run`)",
    ),
    "ahead-call": PoolSpec(
        _ahead_calls, "the model port: calls sent ahead of the step that will ask them"
    ),
    "together": PoolSpec(lambda: 16, "the model port: independent calls of one step at once"),
    "embed-ahead": PoolSpec(
        lambda: 1, "memories: passages embedded while other residents wait on the model"
    ),
    "wsgi": PoolSpec(
        lambda: int(settings.SMALLVILLE_WEB_THREADS),
        "the production server's gateway: the WSGI application's requests",
    ),
    "stream-hub": PoolSpec(lambda: 1, "the live streams' hub: its reads of the log"),
}


@dataclass(frozen=True)
class PoolLoad:
    """What a pool is doing now."""

    size: int  # the most threads it starts
    threads: int  # threads that have run work
    busy: int  # tasks running
    waiting: int  # tasks submitted and not started


class Pool(ThreadPoolExecutor):
    """A thread pool that counts its work as it goes: what waits, what runs, and which
    threads ran any. Submitted work (`submit`, and `map` through it) is wrapped; a task
    cancelled before it started leaves the count of waiting ones too."""

    def __init__(self, name: str, workers: int) -> None:
        self.name = name
        self.size = max(1, workers)
        super().__init__(max_workers=self.size, thread_name_prefix=name)
        self._counts = threading.Lock()
        self._n_waiting = 0
        self._n_busy = 0
        self._ran_on: set[int] = set()

    def submit(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        with self._counts:
            self._n_waiting += 1
        try:
            # What the submitter's work is about (its log fields, its trace) goes with it;
            # nothing else of its context (the call's priority, a broker in use) does.
            future = super().submit(self._counted, carried(), fn, *args, **kwargs)
        except BaseException:
            self._left_waiting()
            raise
        future.add_done_callback(self._forget_cancelled)
        return future

    def _counted(
        self,
        carry: Callable[[], AbstractContextManager[None]],
        fn: Callable[P, T],
        /,
        *args: P.args,
        **kwargs: P.kwargs,
    ) -> T:
        with self._counts:
            self._n_waiting -= 1
            self._n_busy += 1
            self._ran_on.add(threading.get_ident())
        try:
            with carry():
                return fn(*args, **kwargs)
        finally:
            with self._counts:
                self._n_busy -= 1

    def _forget_cancelled(self, future: Future[Any]) -> None:
        if future.cancelled():  # never started: it waits no more
            self._left_waiting()

    def _left_waiting(self) -> None:
        with self._counts:
            self._n_waiting -= 1

    @property
    def waiting(self) -> int:
        return self._n_waiting

    def load(self) -> PoolLoad:
        with self._counts:
            return PoolLoad(self.size, len(self._ran_on), self._n_busy, self._n_waiting)


_pools: dict[str, Pool] = {}
_lock = threading.Lock()


def pool(name: str) -> Pool:
    """The process's pool `name` (a row of `POOLS`), made the first time it is asked."""
    spec = POOLS[name]
    with _lock:
        found = _pools.get(name)
        if found is None:
            found = _pools[name] = Pool(name, spec.size())
        return found


def in_own_connection(call: Callable[[], T], executor: Pool | None = None) -> T:
    """Run `call`, then close the database connections this thread opened for it, unless
    more work waits in `executor` (the pool running it): the next task takes the
    connection on, and a busy pool does not open a connection (a Postgres backend) a task."""
    try:
        return call()
    finally:
        if executor is None or executor.waiting == 0:
            connections.close_all()


@contextmanager
def pool_for_run(name: str) -> Iterator[Pool]:
    """A pool of `name`'s size that lives as long as the block: when it ends, each thread
    closes its database connection, then the pool shuts down."""
    executor = Pool(name, POOLS[name].size())
    try:
        yield executor
    finally:
        _connections_close(executor)
        executor.shutdown(wait=True)


def pools_connections_close() -> None:
    """Close the database connections the named pools' threads hold (a thread that kept
    one for work that another thread took holds it until its next task): before the
    database they point at goes, as at the end of a test session."""
    with _lock:
        named = list(_pools.values())
    for executor in named:
        _connections_close(executor)


def _connections_close(executor: Pool) -> None:
    threads = executor.load().threads
    if threads:
        gate = threading.Barrier(threads)

        def close() -> None:
            gate.wait(timeout=30)  # one task for each thread
            connection.close()

        for future in [executor.submit(close) for _ in range(threads)]:
            with suppress(threading.BrokenBarrierError):
                future.result()


def pools_in_use() -> dict[str, PoolLoad]:
    """Name -> what it is doing now, for the process's named pools."""
    with _lock:
        named = dict(_pools)
    return {name: executor.load() for name, executor in named.items()}
