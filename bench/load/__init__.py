"""The production server under load: `python -m bench load [--seconds N]` prints one JSON object.

Starts the server as `make serve` does (gunicorn with smallville_project/gunicorn_conf.py:
uvicorn workers running the WSGI app in threads, a psycopg pool of database connections
per process) on a free port of
127.0.0.1, and one Celery worker (concurrency 2, as `make serve`) on a private queue.
Over HTTP it creates a simulation (base_the_ville_n25, the paper's cognition, offline
model backend, from 07:00) and runs it; past its first 5 steps (the day plans) and an
unmeasured --warmup (5 s) of the clients, it waits --settle seconds (10), then --clients
threads (16) send a mix of reads and writes for --seconds (30), each on its own keep-alive
connection; then --settle seconds more, and the run is paused and everything stopped.
`--server runserver` puts the development server of `make web` (no pool: a persistent
connection per request thread) in gunicorn's place, to compare.

Reads: the list of simulations, progress, residents, the event log followed by its
cursor (then tailed with seq_after), memory retrieval. Writes: whisper, interview,
an object's state, a new simulation (three residents). The expensive endpoints are
throttled per user; the bench raises the throttles to 1,000,000/minute so the writes
are served (--shipped-throttles keeps the configured rates; 429s are counted apart
from errors either way).

Reported: requests/s, latency p50/p95/p99 per endpoint and overall, errors (5xx and
connection errors; the target is none), 429s, other 4xx; the database connections of
the database (pg_stat_activity, sampled every second: max and mean, in all and per
process kind: web, worker, this bench, other clients of the same database, and those
waiting on a lock), the CPU time the web processes and the worker used, and the
run's steps/s before, during and after the load.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import subprocess
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from django.contrib.auth.models import User
from django.db import connections
from rest_framework.authtoken.models import Token

from bench.machine import stamp
from runtime.workerproc import private_worker
from smallville_project import gunicorn_conf
from world.models import Location, LocationKind, Simulation, SimulationStatus

from .clients import (
    APP_NAMES,
    DEV_SERVER_COMMAND,
    FIRST_STEPS,
    HIGH_RATE,
    HOST,
    MIX,
    ROOT,
    SERVER_COMMAND,
    SERVER_LOG,
    THROTTLES,
    WRITES,
    Client,
    Target,
    Worker,
    free_port,
    percentiles,
)
from .sampling import Sampler, group_cpu_seconds


@contextmanager
def web_server(
    port: int, queue: str, env: dict[str, str], dev: bool = False
) -> Iterator[subprocess.Popen[bytes]]:
    """gunicorn as `make serve` starts it (runserver if `dev`), on 127.0.0.1:port, sending
    work to `queue`."""
    SERVER_LOG.parent.mkdir(exist_ok=True)
    server_env = {
        **os.environ,
        **env,
        "SMALLVILLE_WEB_BIND": f"{HOST}:{port}",
        "SMALLVILLE_QUEUE": queue,
        "SMALLVILLE_WEB_LOG_LEVEL": "warning",
        "PGAPPNAME": APP_NAMES["web"],
    }
    process = subprocess.Popen(
        [*DEV_SERVER_COMMAND, f"{HOST}:{port}"] if dev else SERVER_COMMAND,
        cwd=ROOT,
        env=server_env,
        stdout=SERVER_LOG.open("ab"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        yield process
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)  # graceful: requests in flight finish
            try:
                process.wait(timeout=gunicorn_conf.graceful_timeout + 10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def wait_ready(process: subprocess.Popen[bytes], client: Client, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited ({process.returncode}): see {SERVER_LOG}")
        try:
            status, _ = client.request("GET", "/api/simulations/?limit=1")
        except (OSError, http.client.HTTPException):
            status = 0
        if status == 200:
            return
        time.sleep(0.25)
    raise RuntimeError(f"the server did not answer within {timeout:.0f} s")


def wait_status(simulation_id: int, done: Callable[[Simulation], bool], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if done(Simulation.objects.get(pk=simulation_id)):
            return
        time.sleep(0.2)
    last = Simulation.objects.get(pk=simulation_id)
    raise RuntimeError(f"simulation {simulation_id}: {last.status} {last.status_reason}")


def load(workers: list[Worker], seconds: float) -> dict[str, Any]:
    """The clients' results: per endpoint and overall."""
    latencies: dict[str, list[float]] = defaultdict(list)
    statuses: dict[str, Counter[int]] = defaultdict(Counter)
    failures: Counter[str] = Counter()
    for worker in workers:
        for name, values in worker.tally.latencies.items():
            latencies[name] += values
        for name, counts in worker.tally.statuses.items():
            statuses[name].update(counts)
        failures.update(worker.tally.failures)
    every = [value for values in latencies.values() for value in values]
    every_status: Counter[int] = Counter()
    for counts in statuses.values():
        every_status.update(counts)

    def errors(counts: Counter[int]) -> int:
        return sum(n for status, n in counts.items() if status == 0 or status >= 500)

    endpoints = {
        name: {
            "kind": "write" if name in WRITES else "read",
            "requests": len(latencies[name]),
            "per_s": round(len(latencies[name]) / seconds, 1),
            **percentiles(latencies[name]),
            "statuses": {str(k): v for k, v in sorted(statuses[name].items())},
        }
        for name in MIX
        if latencies[name]
    }
    other_4xx = {
        str(status): n for status, n in sorted(every_status.items()) if 400 <= status < 500
    }
    other_4xx.pop("429", None)
    return {
        "requests": len(every),
        "requests_per_s": round(len(every) / seconds, 1),
        "ok_per_s": round(sum(n for s, n in every_status.items() if 200 <= s < 300) / seconds, 1),
        "overall": percentiles(every),
        "errors": {
            "total": errors(every_status),
            "5xx": sum(n for status, n in every_status.items() if status >= 500),
            "connection": every_status.get(0, 0),
            "kinds": dict(failures),
        },
        "throttled_429": every_status.get(429, 0),
        "other_4xx": other_4xx,
        "endpoints": endpoints,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench load", description=__doc__)
    parser.add_argument("--seconds", type=float, default=30, help="the load (default 30)")
    parser.add_argument("--settle", type=float, default=10, help="before and after (10)")
    parser.add_argument(
        "--warmup", type=float, default=5, help="unmeasured load first: every process warm (5)"
    )
    parser.add_argument("--start", default="07:00", help="sim time of day at step 0 (07:00)")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument(
        "--server",
        default="gunicorn",
        choices=["gunicorn", "runserver"],
        help="gunicorn as `make serve` (default), or the development server, to compare",
    )
    parser.add_argument("--base", default="base_the_ville_n25")
    parser.add_argument("--cognition", default="paper", choices=["paper", "minimal"])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--shipped-throttles",
        action="store_true",
        help="keep the configured rates of the throttled endpoints (default: raised)",
    )
    args = parser.parse_args(argv)
    if not 1 <= args.seconds <= 600 or not 0 <= args.settle <= 120 or not 1 <= args.clients <= 64:
        parser.error("--seconds 1..600, --settle 0..120, --clients 1..64")
    if not 0 <= args.warmup <= 60:
        parser.error("--warmup 0..60")

    # This process's own connections are told apart by name too.
    connections.close_all()
    os.environ["PGAPPNAME"] = APP_NAMES["bench"]

    owner = User.objects.create(username=f"load-{uuid.uuid4().hex[:10]}")
    token = Token.objects.create(user=owner).key
    server_env: dict[str, str] = {}
    if not args.shipped_throttles:
        server_env = {f"SMALLVILLE_THROTTLE_{scope}": HIGH_RATE for scope in THROTTLES}
    port = free_port()
    pool_min, pool_max = gunicorn_conf.pool_sizes()
    dev = args.server == "runserver"
    server: dict[str, Any] = {
        "command": " ".join(["gunicorn", *SERVER_COMMAND[3:]]),
        "bind": f"{HOST}:{port}",
        "worker_class": gunicorn_conf.worker_class,
        "workers": gunicorn_conf.workers,
        "threads": gunicorn_conf.threads,
        "db_pool_per_process": {"min": pool_min, "max": pool_max},
    }
    if dev:
        server = {
            "command": " ".join(["python", *DEV_SERVER_COMMAND[1:], f"{HOST}:{port}"]),
            "bind": f"{HOST}:{port}",
            "db": "a persistent connection per request thread (no pool)",
        }
    report: dict[str, Any] = {
        **stamp(),
        "server": server,
        "celery_worker": {"processes": 1, "concurrency": 2, "db": "persistent connections"},
        "clients": args.clients,
        "throttles": "shipped rates" if args.shipped_throttles else f"raised to {HIGH_RATE}",
        "mix_weights": MIX,
    }
    worker_env = {"PGAPPNAME": APP_NAMES["worker"]}
    with (
        private_worker(env=worker_env, concurrency=2) as worker,
        web_server(port, worker.queue, server_env, dev=dev) as process,
    ):
        setup = Client(port, token)
        wait_ready(process, setup)
        body = {
            "base": args.base,
            "seed": args.seed,
            "config": {"cognition": args.cognition},
            "start_time": f"2023-02-13T{args.start}:00Z",
        }
        created = setup.json("POST", "/api/simulations/", body, expect=201)
        sim_id = int(created["id"])
        simulation = Simulation.objects.get(pk=sim_id)
        residents = list(simulation.agents.order_by("name").values_list("name", flat=True))
        objects = list(
            Location.objects.filter(town=simulation.town, kind=LocationKind.OBJECT)
            .order_by("address")
            .values_list("address", flat=True)[:40]
        )
        report["simulation"] = {
            "base": args.base,
            "residents": len(residents),
            "cognition": args.cognition,
            "llm_backend": "offline",
            "start_time": body["start_time"],
        }
        sampler = Sampler(sim_id)
        sampler.start()
        try:
            setup.json("POST", f"/api/simulations/{sim_id}/run/", {"steps": 1_000_000})
            # Past the first steps (the residents' day plans) before measuring.
            wait_status(sim_id, lambda s: s.step >= FIRST_STEPS, timeout=300)
            target = Target(port, token, sim_id, residents, objects)
            if args.warmup:
                sampler.phase = "warmup"
                warm = [
                    Worker(i, target, time.monotonic() + args.warmup, args.seed + 1)
                    for i in range(args.clients)
                ]
                for client in warm:
                    client.start()
                for client in warm:
                    client.join(timeout=args.warmup + 120)
                report["warmup"] = {
                    "seconds": args.warmup,
                    "requests": sum(
                        sum(c.values()) for w in warm for c in w.tally.statuses.values()
                    ),
                }
            sampler.phase = "before"
            load_before = os.getloadavg()
            time.sleep(args.settle)
            sampler.phase = "during"
            started = time.monotonic()
            assert worker.process is not None
            groups = {"web": process.pid, "worker": worker.process.pid}
            cpu_before = {kind: group_cpu_seconds(pgid) for kind, pgid in groups.items()}
            clients = [
                Worker(i, target, started + args.seconds, args.seed) for i in range(args.clients)
            ]
            for client in clients:
                client.start()
            for client in clients:
                client.join(timeout=args.seconds + 120)
            elapsed = time.monotonic() - started
            load_during = os.getloadavg()
            cpu = {k: group_cpu_seconds(pgid) - cpu_before[k] for k, pgid in groups.items()}
            sampler.phase = "after"
            time.sleep(args.settle)
            sampler.phase = "stopping"
            setup.json("POST", f"/api/simulations/{sim_id}/pause/")
            wait_status(sim_id, lambda s: s.status != SimulationStatus.RUNNING, timeout=60)
        finally:
            sampler.stop()
            setup.close()
        if any(client.is_alive() for client in clients):
            raise RuntimeError("a client thread did not finish")
    report["seconds"] = round(elapsed, 1)
    # Other work on the machine (1-minute load average; 2 cores here) when the load began
    # and when it ended.
    report["load_average_1m"] = {"before": load_before[0], "after_load": load_during[0]}
    report.update(load(clients, elapsed))
    # What the load cost the server, whatever else the machine ran: CPU seconds of the web
    # processes and of the Celery worker during the load, and the web's per request.
    report["cpu_during_load"] = {
        "web_s": round(cpu["web"], 1),
        "worker_s": round(cpu["worker"], 1),
        "web_ms_per_request": round(cpu["web"] / max(1, report["requests"]) * 1000, 1),
    }
    report["phases"] = {phase: sampler.summary(phase) for phase in ("before", "during", "after")}
    final = Simulation.objects.get(pk=sim_id)
    report["simulation"].update(
        {"steps_run": final.step, "status_at_end": final.status, "reason": final.status_reason}
    )
    print(json.dumps(report, indent=2))
