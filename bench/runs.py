"""Runs for the benches: a simulation driven through a private real worker, with a wall
limit, after pausing the bench's own runs left running by an earlier, interrupted bench.

Why pause left-overs: a worker's watchdog resumes every running simulation in the
database whose tick was lost, so a bench killed mid-run leaves a run that the next bench's
worker picks up and shares the CPU (and the model server's one slot) with.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path

from django.conf import settings
from django.contrib.auth.models import User
from django.db import connection
from django.db.models import Exists, OuterRef
from django.utils import timezone

from runtime.engine import simulation_pause, simulation_run
from runtime.engine.run import RunConflict
from runtime.leases import leases_alive, simulation_lease
from runtime.workerproc import WorkerProcess, private_worker
from world.models import Event, Simulation, SimulationStatus

BENCH_USER = "bench"


def bench_owner() -> User:
    owner, _ = User.objects.get_or_create(username=BENCH_USER)
    return owner


def leftovers_pause(*, idle_seconds: float = 120) -> list[int]:
    """Pause the bench user's running simulations that made no progress for
    `idle_seconds` and that no worker holds (left by a killed bench; a bench running
    beside this one keeps going); warn of anyone else's (left alone)."""
    running = Simulation.objects.filter(status=SimulationStatus.RUNNING)
    recent = Event.objects.filter(
        simulation=OuterRef("pk"), created_at__gt=timezone.now() - timedelta(seconds=idle_seconds)
    )
    left = running.filter(
        owner__username=BENCH_USER,
        run_started_at__lt=timezone.now() - timedelta(seconds=idle_seconds),
    ).exclude(Exists(recent))
    held = leases_alive([simulation_lease(pk) for pk in left.values_list("pk", flat=True)])
    paused = []
    for simulation in left:
        if simulation_lease(simulation.pk) in held:
            continue  # a worker is on it: a slow step of a bench running beside this one
        try:
            simulation_pause(simulation=simulation)
        except RunConflict:
            continue  # it ended meanwhile
        paused.append(simulation.pk)
    others = list(running.exclude(owner__username=BENCH_USER).values_list("pk", flat=True))
    if paused:
        print(f"paused left-over bench runs {paused}", file=sys.stderr)
    if others:
        print(
            f"warning: simulations {others} are running; a worker started here may resume "
            "them and share the machine with this bench",
            file=sys.stderr,
        )
    return paused


def run_through_worker(
    simulation: Simulation,
    steps: int,
    *,
    env: dict[str, str] | None = None,
    wall_limit: float | None = None,
    concurrency: int = 2,
    asked: list[datetime] | None = None,
) -> float:
    """Run `steps` through a private worker until the run ends or `wall_limit` seconds
    pass (then pause it after the step in flight); the wall seconds it took, the worker's
    start and stop included. `asked` gets the time the run was asked for, the worker up."""
    leftovers_pause()
    started = time.perf_counter()
    with private_worker(env=env, concurrency=concurrency):
        if asked is not None:
            asked.append(timezone.now())
        simulation_run(simulation=simulation, steps=steps)
        while _status(simulation) == SimulationStatus.RUNNING:
            if wall_limit is not None and time.perf_counter() - started > wall_limit:
                # Paused, the run stops after the step in flight; stopping the worker
                # below waits for it (a warm shutdown).
                with contextlib.suppress(RunConflict):  # it ended meanwhile
                    simulation_pause(simulation=Simulation.objects.get(pk=simulation.pk))
                break
            time.sleep(1)
    simulation.refresh_from_db()
    return time.perf_counter() - started


def _status(simulation: Simulation) -> str:
    return Simulation.objects.values_list("status", flat=True).get(pk=simulation.pk)


def run_spread(
    simulation: Simulation, steps: int, *, env: dict[str, str], workers: int, concurrency: int
) -> tuple[float, float]:
    """Run `steps` through `workers` private worker processes (threads pools of
    `concurrency`), the ahead engine spreading its groups over them
    (runtime/engine/ahead/spread.py); the wall seconds from the run's request to its end,
    and the CPU seconds the worker processes spent meanwhile (the database's not counted)."""
    leftovers_pause()
    connections_check(workers * concurrency + settings.SMALLVILLE_CALLS_IN_FLIGHT)
    env = {**env, "SMALLVILLE_ENGINE": "ahead", "SMALLVILLE_AHEAD_SPREAD": "1"}
    with private_worker(env=env, concurrency=concurrency, pool="threads") as first:
        others: list[WorkerProcess] = []
        for n in range(1, workers):
            other = WorkerProcess(first.queue, first.env, concurrency, "threads")
            other.log = first.log.with_name(f"{first.log.stem}-{n + 1}.log")
            other.start()
            others.append(other)
        try:
            pids = [first.pid, *(w.pid for w in others)]
            cpu = _cpu_seconds(pids)
            started = time.perf_counter()
            simulation_run(simulation=simulation, steps=steps)
            while _status(simulation) == SimulationStatus.RUNNING:
                time.sleep(0.5)
            elapsed = time.perf_counter() - started
            cpu = _cpu_seconds(pids) - cpu
        finally:
            for other in others:
                other.stop()
    simulation.refresh_from_db()
    return elapsed, cpu


def connections_check(threads: int) -> None:
    """Fail before the run when the database cannot give each thread that may wait on a
    model its connection (docs/operations.md, "Connections")."""
    with connection.cursor() as cursor:
        cursor.execute("SHOW max_connections")
        allowed = int(cursor.fetchone()[0])
    needed = threads + CONNECTIONS_BESIDE
    if needed > allowed:
        raise SystemExit(
            f"this run may hold {needed} database connections and the database allows "
            f"{allowed} (max_connections): fewer workers, threads or calls in flight"
        )


CONNECTIONS_BESIDE = 40  # the processes' other pools, the bench, the web, psql sessions


def _cpu_seconds(pids: list[int]) -> float:
    """User and system CPU seconds of these processes and their waited-for children."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += sum(int(f) for f in fields[11:15])  # utime, stime, cutime, cstime
    return total / ticks
