"""A Celery worker as a child process on a private queue: for the demo and the tests."""

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

from celery import current_app as app
from django.conf import settings

ROOT = Path(__file__).resolve().parent.parent


class WorkerProcess:
    """`celery worker` in its own process group, consuming `queue` and its reflection and
    webhook queues.

    It shares this process's cache key prefix, so its leases, watchdog marks and what it
    remembers of model servers are this process's, not another run's on the same Redis
    (simulations of two databases share primary keys)."""

    def __init__(
        self, queue: str, env: dict[str, str], concurrency: int = 1, pool: str = "prefork"
    ) -> None:
        self.queue = queue
        prefix = str(settings.CACHES["default"].get("KEY_PREFIX", ""))
        self.env = {
            **os.environ,
            "SMALLVILLE_QUEUE": queue,
            "SMALLVILLE_CACHE_PREFIX": prefix,
            **env,
        }
        self.concurrency = concurrency
        self.pool = pool  # "threads" for work that waits on a model server
        self.process: subprocess.Popen[bytes] | None = None
        self.log = ROOT / ".pgdata" / f"worker-{queue}.log"

    def start(self, timeout: float = 60) -> None:
        name = f"{self.queue}-{uuid.uuid4().hex[:6]}@localhost"
        command = [sys.executable, "-m", "celery", "-A", "smallville_project", "worker"]
        queues = f"{self.queue},{self.queue}.reflection,{self.queue}.webhooks"
        command += ["-Q", queues, "-n", name, f"--concurrency={self.concurrency}"]
        command += [
            f"--pool={self.pool}",
            "--without-gossip",
            "--without-mingle",
            "--loglevel=INFO",
        ]
        self.process = subprocess.Popen(
            command,
            cwd=ROOT,
            env=self.env,
            stdout=self.log.open("ab"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if app.control.ping(destination=[name], timeout=0.5):
                return
            if self.process.poll() is not None:
                raise RuntimeError(f"the worker exited: see {self.log}")
        raise RuntimeError(f"the worker did not answer within {timeout:.0f} s: see {self.log}")

    @property
    def pid(self) -> int:
        """The worker's main process: the group of its pool's processes."""
        assert self.process is not None
        return self.process.pid

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
def private_worker(
    env: dict[str, str] | None = None, concurrency: int = 1, pool: str = "prefork"
) -> Iterator[WorkerProcess]:
    """Start a worker; this process sends its tasks to the worker's private queue."""
    queue = f"smallville-{uuid.uuid4().hex[:8]}"
    saved = app.conf.task_default_queue
    app.conf.task_default_queue = queue
    worker = WorkerProcess(queue, env or {}, concurrency, pool)
    try:
        worker.start()
        yield worker
    finally:
        worker.stop()
        app.conf.task_default_queue = saved
        with app.connection_for_write() as conn:
            for name in (queue, f"{queue}.reflection", f"{queue}.webhooks"):
                conn.default_channel.queue_delete(name)  # type: ignore[attr-defined]
