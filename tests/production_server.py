"""The production server in a test: gunicorn as `make serve` starts it
(smallville_project/gunicorn_conf.py: 2 processes x 4 threads, a pool of database
connections per process) on a free port of 127.0.0.1, against the database the test
names, with a cache key prefix and a task queue of its own; with `served_with_worker`,
also the Celery worker `make serve` starts beside it, on that queue."""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from django.db import connection

from runtime.workerproc import ROOT, WorkerProcess
from tests.chaos.processes import free_port
from tests.runtime.workers import celery_worker

COMMAND = [sys.executable, "-m", "gunicorn", "-c", "python:smallville_project.gunicorn_conf"]


def served_database_url() -> str:
    """The URL of the database this test process uses (the test database)."""
    db = connection.settings_dict
    host = str(db["HOST"])
    where = (
        f"@:{db['PORT']}/{db['NAME']}?host={host}"
        if host.startswith("/")
        else (f"@{host}:{db['PORT']}/{db['NAME']}")
    )
    return f"postgres://{db['USER']}:{db['PASSWORD']}{where}"


class ProductionServer:
    def __init__(self, env: dict[str, str]) -> None:
        self.port = free_port()
        self.log = ROOT / ".pgdata" / f"gunicorn-test-{self.port}.log"
        self.env = {
            **os.environ,
            "SMALLVILLE_WEB_BIND": f"127.0.0.1:{self.port}",
            "SMALLVILLE_WEB_LOG_LEVEL": "warning",
            "SMALLVILLE_CACHE_PREFIX": f"tests-web-{uuid.uuid4().hex[:8]}",
            "SMALLVILLE_QUEUE": f"smallville-tests-web-{uuid.uuid4().hex[:8]}",
            **env,
        }
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def queue(self) -> str:
        """The queue its tasks go to (a worker on it runs them)."""
        return self.env["SMALLVILLE_QUEUE"]

    def start(self, timeout: float = 120) -> None:
        self.log.parent.mkdir(exist_ok=True)
        self.process = subprocess.Popen(
            COMMAND,
            cwd=ROOT,
            env=self.env,
            stdout=self.log.open("ab"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"gunicorn exited: see {self.log}")
            try:
                self.request("GET", "/healthz", timeout=5)
                return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError(f"gunicorn did not answer within {timeout:.0f} s: see {self.log}")

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        token: str = "",
        chunks: Iterable[bytes] | None = None,
        timeout: float = 60,
    ) -> tuple[int, dict[str, str], bytes]:
        """One request on a connection of its own: (status, headers, body). `chunks` sends
        the body with Transfer-Encoding: chunked, one chunk each."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        headers = {"Accept": "application/json"}
        if token:
            headers["Authorization"] = f"Token {token}"
        data: Any = None
        if body is not None or chunks is not None:
            headers["Content-Type"] = "application/json"
            data = iter(list(chunks)) if chunks is not None else json.dumps(body).encode()
        try:
            chunked = chunks is not None
            conn.request(method, path, body=data, headers=headers, encode_chunked=chunked)
            response = conn.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        finally:
            conn.close()


@contextmanager
def production_server(env: dict[str, str] | None = None) -> Iterator[ProductionServer]:
    server = ProductionServer(env or {})
    try:
        server.start()
        yield server
    finally:
        server.stop()


@contextmanager
def served_with_worker(
    env: dict[str, str] | None = None, worker_env: dict[str, str] | None = None
) -> Iterator[tuple[ProductionServer, WorkerProcess]]:
    """The production server on the test database and a real Celery worker consuming its
    queues (ticks, reflection, webhooks), sharing its cache key prefix (leases, the
    watchdog's marks), as `make serve` runs them: runs started over HTTP are advanced."""
    with celery_worker(**(worker_env or {})) as worker:
        served = {
            "DATABASE_URL": served_database_url(),
            "SMALLVILLE_QUEUE": worker.queue,
            "SMALLVILLE_CACHE_PREFIX": worker.env["SMALLVILLE_CACHE_PREFIX"],
            **(env or {}),
        }
        with production_server(served) as server:
            yield server, worker
