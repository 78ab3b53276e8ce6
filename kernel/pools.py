"""The process's thread pools, in one place. Each named pool is made once, when first
used, with the size its first caller asks for; a run's own pool (`pool_for_run`) closes its
threads' database connections when the run ends. Work submitted with `in_own_connection`
closes the connections its thread opened once its pool has nothing waiting, so a pool
thread seldom holds one idle.

The pools (name: who submits, what waits in it):
- `agent-step`: the barrier engine, residents of one shard decided at once.
- `ahead`: the engine that runs residents ahead, a run's decisions and reflections.
- `ahead-call`: the model port, calls sent ahead of the step that will ask them.
- `together`: the model port, independent calls of one step made at once.
- `embed-ahead`: memories, passages embedded while other residents wait on the model.
- `wsgi`: the production server's gateway, the WSGI application's requests.
- `stream-hub`: the live streams' hub, its reads of the log (one thread).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, suppress
from typing import Any, TypeVar

from django.db import connection, connections

T = TypeVar("T")

_pools: dict[str, ThreadPoolExecutor] = {}
_lock = threading.Lock()


def pool(name: str, workers: int) -> ThreadPoolExecutor:
    """The process's pool `name`, made with `workers` threads the first time it is asked."""
    with _lock:
        found = _pools.get(name)
        if found is None:
            found = _pools[name] = ThreadPoolExecutor(
                max_workers=max(1, workers), thread_name_prefix=name
            )
        return found


def in_own_connection(call: Callable[[], T], executor: ThreadPoolExecutor | None = None) -> T:
    """Run `call`, then close the database connections this thread opened for it, unless
    more work waits in `executor` (the pool running it): the next task takes the
    connection on, and a busy pool does not open a connection (a Postgres backend) a task."""
    try:
        return call()
    finally:
        queue = getattr(executor, "_work_queue", None)
        if queue is None or queue.empty():
            connections.close_all()


@contextmanager
def pool_for_run(name: str, workers: int) -> Iterator[ThreadPoolExecutor]:
    """A pool that lives as long as the block: when it ends, each thread closes its
    database connection, then the pool shuts down."""
    executor = ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix=name)
    try:
        yield executor
    finally:
        _close(executor)


def _close(executor: ThreadPoolExecutor) -> None:
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


def _connections_close(executor: ThreadPoolExecutor) -> None:
    threads = len(getattr(executor, "_threads", ()))
    if threads:
        gate = threading.Barrier(threads)

        def close() -> None:
            gate.wait(timeout=30)  # one task for each thread
            connection.close()

        for future in [executor.submit(close) for _ in range(threads)]:
            with suppress(threading.BrokenBarrierError):
                future.result()


def pools_in_use() -> dict[str, Any]:
    """Name -> threads started, for the process's named pools."""
    with _lock:
        return {name: len(getattr(p, "_threads", ())) for name, p in _pools.items()}
