"""Tick throughput: `python -m bench engine [--steps N] [--quick]` prints one JSON object.

Agent-steps per second with the offline backend and the minimal cognition, for 25
residents (base_the_ville_n25) and for 500: the 25 and 475 made up and spread over the
Ville (`--town spread`, bench.towns), or 19 copies of each at their tiles, named
"<name> 2" .. "<name> 20" (`--town copies`, as the earliest figures were measured), added through
the event log; over 360 steps (one sim hour), through real Celery workers on Redis: one
worker process, then two. Also the same run in one process without Celery, to show what
the broker and task overhead cost.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from django.contrib.auth.models import User

from agents.services import simulation_create_from_base
from bench.machine import stamp
from bench.towns import TOWN_KINDS, TownKind, residents_add
from runtime.engine import simulation_run, simulation_run_inline
from runtime.workerproc import WorkerProcess, private_worker
from world.models import Simulation, SimulationStatus


def simulation_of(size: int, owner: User, town: TownKind = "copies") -> Simulation:
    """base_the_ville_n25 and residents added up to `size` (bench.towns): copies by
    default, which the replay and viewer benches copy the 25's day onto."""
    simulation = simulation_create_from_base(
        owner=owner,
        base="base_the_ville_n25",
        seed=7,
        name=f"bench {size} agents",
        config={"cognition": "minimal"},
    )
    if size > simulation.agents.count():
        residents_add(simulation, size, town=town)
    return simulation


def timed_run(simulation: Simulation, steps: int, workers: int) -> dict[str, Any]:
    agents = simulation.agents.count()
    started = time.perf_counter()
    if workers == 0:
        simulation_run_inline(simulation=simulation, steps=steps)
    else:
        with private_worker() as first:
            extra = None
            if workers == 2:
                extra = WorkerProcess(first.queue, {})
                extra.start()
            try:
                started = time.perf_counter()
                simulation_run(simulation=simulation, steps=steps)
                while Simulation.objects.get(pk=simulation.pk).status == SimulationStatus.RUNNING:
                    time.sleep(0.05)
            finally:
                if extra is not None:
                    extra.stop()
    elapsed = time.perf_counter() - started
    simulation.refresh_from_db()
    assert simulation.status == SimulationStatus.IDLE, simulation.status_reason
    return {
        "agents": agents,
        "steps": steps,
        "worker_processes": workers,
        "seconds": round(elapsed, 2),
        "agent_steps_per_s": round(agents * steps / elapsed, 1),
        "ms_per_tick": round(elapsed / steps * 1000, 1),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench engine", description=__doc__)
    parser.add_argument("--steps", type=int, default=360)
    parser.add_argument("--quick", action="store_true", help="60 steps, for a smoke test")
    parser.add_argument(
        "--town", choices=TOWN_KINDS, default="spread", help="how the 500 are added"
    )
    args = parser.parse_args(argv)
    steps = 60 if args.quick else args.steps
    owner, _ = User.objects.get_or_create(username="bench")
    runs = []
    for size in (25, 500):
        for workers in (0, 1, 2):
            runs.append(timed_run(simulation_of(size, owner, args.town), steps, workers))
    targets = {25: 300, 500: 1500}
    best = {
        size: max(
            r["agent_steps_per_s"] for r in runs if r["agents"] == size and r["worker_processes"]
        )
        for size in targets
    }
    report = {
        **stamp(),
        "backend": "offline",
        "cognition": "minimal",
        "town": args.town,
        "runs": runs,
        "targets": {
            f"{size}_agents": {
                "target_agent_steps_per_s": target,
                "reached": best[size],
                "met": best[size] >= target,
            }
            for size, target in targets.items()
        },
    }
    print(json.dumps(report, indent=2))
