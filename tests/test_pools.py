"""The process's pools: sized by their row of POOLS, counting their own work; a pool's work
in its own connection: a busy pool hands one connection from task to task; the last task of
a burst closes it, so an idle thread holds none."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection
from django.test import override_settings

from kernel.pools import (
    POOLS,
    Pool,
    PoolLoad,
    PoolSpec,
    in_own_connection,
    pool,
    pool_for_run,
    pools_connections_close,
    pools_in_use,
)


def _backend() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return int(cursor.fetchone()[0])


@pytest.mark.django_db(transaction=True)
def test_a_busy_pool_keeps_its_connection_and_closes_it_when_idle() -> None:
    executor = Pool("test-pool", 1)
    gate = threading.Event()

    def first() -> int:
        gate.wait(timeout=10)  # the others are queued behind it meanwhile
        return _backend()

    try:
        futures = [executor.submit(in_own_connection, first, executor)]
        futures += [executor.submit(in_own_connection, _backend, executor) for _ in range(2)]
        gate.set()
        backends = [f.result(timeout=10) for f in futures]
        assert len(set(backends)) == 1  # one backend for the burst, not one a task
        # The burst's last task found nothing waiting: the thread holds no connection.
        assert executor.submit(lambda: connection.connection is None).result(timeout=10)
        # Without a pool to look at, the connection closes after each task.
        again = [executor.submit(in_own_connection, _backend).result() for _ in range(2)]
        assert again[0] != again[1]
    finally:
        executor.submit(lambda: connection.close()).result(timeout=10)
        executor.shutdown(wait=True)


@pytest.mark.django_db(transaction=True)
def test_the_named_pools_threads_let_go_of_their_connections_when_asked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(POOLS, "test-pools-held", PoolSpec(lambda: 1, "this test's"))
    named = pool("test-pools-held")
    backend = named.submit(_backend).result(timeout=10)  # left open, as a kept one is
    assert named.submit(lambda: connection.connection is not None).result(timeout=10)
    pools_connections_close()
    assert named.submit(lambda: connection.connection is None).result(timeout=10)
    for _ in range(50):  # the backend ends a moment after its client said goodbye
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s", [backend])
            if cursor.fetchone()[0] == 0:
                break
        time.sleep(0.1)
    else:
        pytest.fail(f"the pool's backend {backend} is still connected")


def test_a_pool_counts_what_waits_what_runs_and_its_threads() -> None:
    executor = Pool("test-counts", 2)
    gate = threading.Event()
    try:
        running = [executor.submit(gate.wait, 10) for _ in range(2)]
        queued = [executor.submit(gate.wait, 10) for _ in range(2)]
        for _ in range(100):  # the two threads have taken the first two
            if executor.load().busy == 2:
                break
            time.sleep(0.01)
        assert executor.load() == PoolLoad(size=2, threads=2, busy=2, waiting=2)
        assert executor.waiting == 2
        assert queued[1].cancel()  # never started: it waits no more
        assert executor.load().waiting == 1
        gate.set()
        assert all(f.result(timeout=10) for f in [*running, queued[0]])
        assert executor.load() == PoolLoad(size=2, threads=2, busy=0, waiting=0)
        assert list(executor.map(lambda n: n * 2, [1, 2, 3])) == [2, 4, 6]  # map counts too
        assert executor.load().waiting == 0
    finally:
        gate.set()
        executor.shutdown(wait=True)


def test_pools_are_sized_by_their_row_and_the_settings() -> None:
    with override_settings(SMALLVILLE_CALLS_IN_FLIGHT=3), pool_for_run("ahead") as run:
        assert run.size == 3
        assert run.submit(lambda: 1).result(timeout=10) == 1
    assert POOLS["stream-hub"].size() == 1
    with override_settings(SMALLVILLE_LLM_CONCURRENCY=0, SMALLVILLE_CALLS_IN_FLIGHT=2):
        assert POOLS["ahead-call"].size() == 8  # at least 8 calls sent ahead
    with override_settings(SMALLVILLE_LLM_CONCURRENCY=5):
        assert POOLS["ahead-call"].size() == 5  # the model server's slots
    with pytest.raises(KeyError):
        pool("a pool no row names")


def test_the_named_pools_report_their_load(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(POOLS, "test-pools-load", PoolSpec(lambda: 1, "this test's"))
    pool("test-pools-load").submit(lambda: None).result(timeout=10)
    assert pools_in_use()["test-pools-load"] == PoolLoad(size=1, threads=1, busy=0, waiting=0)
