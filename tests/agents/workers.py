"""A real Celery worker process on the real Redis broker, against the test database."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

from django.db import connection

from smallville_project.celery import app

ROOT = Path(__file__).resolve().parents[2]


def test_database_url() -> str:
    db = connection.settings_dict
    host = db["HOST"] or ""
    if host.startswith("/"):
        return f"postgresql://{db['USER']}@/{db['NAME']}?host={quote(host)}"
    auth = f"{db['USER']}:{quote(db['PASSWORD'] or '')}"
    return f"postgresql://{auth}@{host}:{db['PORT'] or 5432}/{db['NAME']}"


class Worker:
    """`celery worker` in its own process group, on a queue private to one test."""

    def __init__(self, queue: str, extra_env: dict[str, str]) -> None:
        self.queue = queue
        self.env = {
            **os.environ,
            "DATABASE_URL": test_database_url(),
            "SMALLVILLE_QUEUE": queue,
            "SMALLVILLE_VISIBILITY_TIMEOUT": "3",
            "SMALLVILLE_RESTORE_INTERVAL": "1",
            "SMALLVILLE_RESTORE_THROTTLE": "1",
            **extra_env,
        }
        self.process: subprocess.Popen[bytes] | None = None
        self.log = ROOT / ".pgdata" / f"worker-{queue}.log"

    def start(self) -> None:
        name = f"{self.queue}-{uuid.uuid4().hex[:6]}@localhost"
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "smallville_project",
                "worker",
                "-Q",
                self.queue,
                "-n",
                name,
                "--concurrency=1",
                "--pool=prefork",
                "--without-gossip",
                "--without-mingle",
                "--loglevel=INFO",
            ],
            cwd=ROOT,
            env=self.env,
            stdout=self.log.open("ab"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if app.control.ping(destination=[name], timeout=0.5):
                return
            if self.process.poll() is not None:
                raise RuntimeError(f"worker exited: see {self.log}")
        raise RuntimeError(f"worker did not answer a ping within 60 s: see {self.log}")

    def kill(self) -> None:
        """SIGKILL the worker and its pool at once: no ack, no cleanup."""
        assert self.process is not None
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


@contextmanager
def celery_worker(**extra_env: str) -> Iterator[Worker]:
    """Start a worker; the test process sends its tasks to the worker's private queue."""
    queue = f"smallville-test-{uuid.uuid4().hex[:8]}"
    saved = app.conf.task_default_queue
    app.conf.task_default_queue = queue
    worker = Worker(queue, extra_env)
    try:
        worker.start()
        yield worker
    finally:
        worker.stop()
        app.conf.task_default_queue = saved
        with app.connection_for_write() as conn:
            conn.default_channel.queue_delete(queue)


def wait_for(predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
