"""A real Celery worker on the real Redis broker, against the test database."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from urllib.parse import quote

from django.db import connection

from runtime.workerproc import WorkerProcess, private_worker


def test_database_url() -> str:
    db = connection.settings_dict
    host = db["HOST"] or ""
    if host.startswith("/"):
        return f"postgresql://{db['USER']}@/{db['NAME']}?host={quote(host)}"
    auth = f"{db['USER']}:{quote(db['PASSWORD'] or '')}"
    return f"postgresql://{auth}@{host}:{db['PORT'] or 5432}/{db['NAME']}"


@contextmanager
def celery_worker(**extra_env: str) -> Iterator[WorkerProcess]:
    """One worker process (see `celery_workers`)."""
    with celery_workers(1, extra_env) as worker:
        yield worker


@contextmanager
def celery_workers(
    concurrency: int, extra_env: dict[str, str], pool: str = "prefork"
) -> Iterator[WorkerProcess]:
    """A worker (`worker_env`) on a private queue."""
    with private_worker(worker_env(extra_env), concurrency, pool) as worker:
        yield worker


def worker_env(extra_env: dict[str, str]) -> dict[str, str]:
    """A test worker's: the test database, and a dead worker's tasks redelivered after 3 s
    instead of minutes..."""
    return {
        "DATABASE_URL": test_database_url(),
        "SMALLVILLE_VISIBILITY_TIMEOUT": "3",
        "SMALLVILLE_RESTORE_INTERVAL": "1",
        "SMALLVILLE_RESTORE_THROTTLE": "1",
        # ... and a run whose tick was lost resumed within seconds, not minutes.
        "SMALLVILLE_STALL_SECONDS": "5",
        "SMALLVILLE_WATCHDOG_SECONDS": "1",
        **extra_env,
    }


def wait_for(predicate: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
