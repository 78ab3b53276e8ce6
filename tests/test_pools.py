"""A pool's work in its own connection: a busy pool hands one connection from task to
task; the last task of a burst closes it, so an idle thread holds none."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection

from kernel.pools import in_own_connection, pool, pools_connections_close


def _backend() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return int(cursor.fetchone()[0])


@pytest.mark.django_db(transaction=True)
def test_a_busy_pool_keeps_its_connection_and_closes_it_when_idle() -> None:
    executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="test-pool")
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
def test_the_named_pools_threads_let_go_of_their_connections_when_asked() -> None:
    named = pool("test-pools-held", 1)
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
