"""A pool's work in its own connection: a busy pool hands one connection from task to
task; the last task of a burst closes it, so an idle thread holds none."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection

from smallville_project.pools import in_own_connection


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
