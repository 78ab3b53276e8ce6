"""Live streams on a running simulation: `python -m bench stream [--clients N]` prints JSON.

Starts the server as `make serve` does (bench.load's: gunicorn with uvicorn workers) and
one Celery worker, creates a simulation over HTTP (base_the_ville_n25, the paper's
cognition, offline model backend) and runs it. Past its first steps it measures the run's
steps/s for --seconds with no stream client; then --clients streams are opened (each on
its own connection, all on one event loop here, from the log's end) and the run's steps/s is
measured again for --seconds while every client notes when each event arrives. Then the
run is paused, and each client is read to the log's last seq.

Reported: delivery latency of every (client, event) appended once every client was
listening, from the event's `created_at` (the now() of the transaction that appended it,
i.e. its start: the delay from the commit is at most this) to its arrival,
p50/p95/p99/max, and from when this process first saw it committed (the simulation's
last_seq read every 50 ms: the delay from the commit, within 50 ms and this process's
own lag); per client, events received, missing and
repeated (the target is none); the web processes' memory (RSS summed over gunicorn's
process group) without and with the clients, and their CPU seconds; steps/s without and
with the clients.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import threading
import time
import uuid
from datetime import datetime
from pathlib import Path
from typing import Any

from django.contrib.auth.models import User
from django.db import connections
from rest_framework.authtoken.models import Token

from bench.load import wait_ready, wait_status, web_server
from bench.load.clients import FIRST_STEPS, HOST, Client, free_port, percentiles
from bench.load.sampling import group_cpu_seconds
from bench.machine import stamp
from runtime.workerproc import private_worker
from smallville_project import gunicorn_conf
from world.models import Simulation, SimulationStatus


class StreamClients(threading.Thread):
    """N streams read on one event loop (a thread each would starve this process's own
    requests of the GIL): for each, the data lines with their arrival times."""

    def __init__(self, port: int, token: str, path: str, count: int) -> None:
        super().__init__(daemon=True)
        self.request = (
            f"GET {path} HTTP/1.1\r\nHost: {HOST}:{port}\r\n"
            f"Authorization: Token {token}\r\nAccept: text/event-stream\r\n\r\n"
        ).encode()
        self.port, self.count = port, count
        self.seen: list[list[tuple[bytes, float]]] = [[] for _ in range(count)]
        self.last_seq = [0] * count
        self.open = threading.Event()  # every stream has its response headers
        self._stop_soon: Any = None

    def run(self) -> None:
        asyncio.run(self._all())

    def stop(self) -> None:
        if self._stop_soon is not None:
            self._stop_soon()
        self.join(10)

    async def _all(self) -> None:
        loop, stopping = asyncio.get_running_loop(), asyncio.Event()
        self._stop_soon = lambda: loop.call_soon_threadsafe(stopping.set)
        streams = await asyncio.gather(*(self._open() for _ in range(self.count)))
        self.open.set()
        reads = [asyncio.create_task(self._read(i, r)) for i, (r, _) in enumerate(streams)]
        await stopping.wait()
        for read in reads:
            read.cancel()

    async def _open(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        reader, writer = await asyncio.open_connection(HOST, self.port, limit=2**20)
        writer.write(self.request)
        status = await reader.readline()
        if b" 200 " not in status:
            raise RuntimeError(f"stream: {status!r}")
        while (await reader.readline()).strip():
            pass  # the headers
        return reader, writer  # the writer kept: collected, it would close the connection

    async def _read(self, i: int, reader: asyncio.StreamReader) -> None:
        """What arrives, as it arrives: parsed once the run is over (cheap here, so this
        process's lag stays out of the arrival times)."""
        while data := await reader.read(2**16):
            self.seen[i].append((data, time.time()))
            found = data.rfind(b"\nid: ")
            if found >= 0:
                end = data.find(b"\n", found + 1)
                if end > 0:
                    self.last_seq[i] = int(data[found + 5 : end])

    def events(self, i: int) -> list[tuple[dict[str, Any], float]]:
        """Stream i's events with the time of the read that completed each."""
        found, buffer = [], b""
        for data, at in self.seen[i]:
            *lines, buffer = (buffer + data).split(b"\n")
            found += [(json.loads(line[6:]), at) for line in lines if line.startswith(b"data: ")]
        return found


class CommitProbe(threading.Thread):
    """When each seq was first seen committed: the simulation's last_seq read every 50 ms
    from this process (its own connection)."""

    def __init__(self, sim_id: int) -> None:
        super().__init__(daemon=True)
        self.sim_id = sim_id
        self.seen_at: dict[int, float] = {}
        self.stop = False

    def run(self) -> None:
        last = Simulation.objects.get(pk=self.sim_id).last_seq
        while not self.stop:
            now_last = Simulation.objects.get(pk=self.sim_id).last_seq
            at = time.time()
            for seq in range(last + 1, now_last + 1):
                self.seen_at[seq] = at
            last = now_last
            time.sleep(0.05)
        connections.close_all()


def group_rss_mb(pgid: int) -> float:
    """Resident memory of the live processes of process group `pgid`, in MB."""
    kb = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[2]) != pgid:
                continue
            status = (stat.parent / "status").read_text()
        except (OSError, IndexError):
            continue
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                kb += int(line.split()[1])
    return round(kb / 1024, 1)


def steps_per_second(sim_id: int, seconds: float) -> float:
    first = Simulation.objects.get(pk=sim_id).step
    time.sleep(seconds)
    return round((Simulation.objects.get(pk=sim_id).step - first) / seconds, 2)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench stream", description=__doc__)
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=30, help="each window (default 30)")
    parser.add_argument("--base", default="base_the_ville_n25")
    parser.add_argument("--cognition", default="paper", choices=["paper", "minimal"])
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    if not 1 <= args.clients <= 1000 or not 5 <= args.seconds <= 300:
        parser.error("--clients 1..1000, --seconds 5..300")

    connections.close_all()
    owner = User.objects.create(username=f"stream-{uuid.uuid4().hex[:10]}")
    token = Token.objects.create(user=owner).key
    port = free_port()
    report: dict[str, Any] = {
        **stamp(),
        "server": {
            "worker_class": gunicorn_conf.worker_class,
            "workers": gunicorn_conf.workers,
            "threads": gunicorn_conf.threads,
        },
        "clients": args.clients,
    }
    streams: StreamClients | None = None
    probe: CommitProbe | None = None
    with (
        private_worker(concurrency=2) as worker,
        web_server(port, worker.queue, {}) as process,
    ):
        setup = Client(port, token)
        wait_ready(process, setup)
        body = {"base": args.base, "seed": args.seed, "config": {"cognition": args.cognition}}
        sim_id = int(setup.json("POST", "/api/simulations/", body, expect=201)["id"])
        try:
            setup.json("POST", f"/api/simulations/{sim_id}/run/", {"steps": 1_000_000})
            wait_status(sim_id, lambda s: s.step >= FIRST_STEPS, timeout=300)
            rss_idle = group_rss_mb(process.pid)
            without = steps_per_second(sim_id, args.seconds)
            after = Simulation.objects.get(pk=sim_id).last_seq
            path = f"/api/simulations/{sim_id}/stream/?after={after}"
            opened = time.monotonic()
            streams = StreamClients(port, token, path, args.clients)
            streams.start()
            if not streams.open.wait(300):
                raise RuntimeError("the streams did not open within 300 s")
            report["open_seconds"] = round(time.monotonic() - opened, 2)
            ready = time.time()  # latencies count from here: every client is listening
            probe = CommitProbe(sim_id)
            probe.start()
            cpu_before = group_cpu_seconds(process.pid)
            with_clients = steps_per_second(sim_id, args.seconds)
            cpu = group_cpu_seconds(process.pid) - cpu_before
            rss_streaming = group_rss_mb(process.pid)
            setup.json("POST", f"/api/simulations/{sim_id}/pause/")
            wait_status(sim_id, lambda s: s.status != SimulationStatus.RUNNING, timeout=120)
            last = Simulation.objects.get(pk=sim_id).last_seq
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and any(
                streams.last_seq[i] < last for i in range(args.clients)
            ):
                time.sleep(0.5)
        finally:
            if streams is not None:
                streams.stop()
            if probe is not None:
                probe.stop = True
                probe.join(10)
            setup.close()
    latencies: list[float] = []
    missing = repeated = 0
    assert streams is not None and probe is not None
    from_commit: list[float] = []
    for i in range(args.clients):
        events = streams.events(i)
        seqs = [event["seq"] for event, _ in events]
        repeated += len(seqs) - len(set(seqs))
        missing += len(set(range(after + 1, last + 1)) - set(seqs))
        for event, arrived in events:
            created = datetime.fromisoformat(event["created_at"]).timestamp()
            if created >= ready:
                latencies.append(arrived - created)
                if event["seq"] in probe.seen_at:
                    from_commit.append(arrived - probe.seen_at[event["seq"]])
    report.update(
        {
            "simulation": {"base": args.base, "cognition": args.cognition, "events": last - after},
            "steps_per_s": {"without_clients": without, "with_clients": with_clients},
            "delivery_from_created_at": percentiles(latencies) if latencies else {},
            "delivery_from_commit_seen": percentiles(from_commit) if from_commit else {},
            "deliveries": len(latencies),
            "missing": missing,
            "repeated": repeated,
            "web_rss_mb": {"without_clients": rss_idle, "with_clients": rss_streaming},
            "web_cpu_s_with_clients": round(cpu, 1),
        }
    )
    print(json.dumps(report, indent=2))
