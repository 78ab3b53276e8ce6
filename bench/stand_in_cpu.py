"""The offline stand-in's CPU a resident-step: `python -m bench stand_in_cpu [--steps N]`.

Creates a simulation of base_the_ville_n25 with the paper's cognition on the offline
backend from 2023-02-13 07:00 at a minute a step, runs `--warm` steps in this process
(the day plans), then `--steps` more, and reports the process CPU (`time.process_time`,
every thread of it) over steps x residents. Run it on a new database (`DATABASE_URL`)
for every text to be embedded anew, as a run of a new town would; the same command with
another checkout's code on another new database gives the ratio (docs/benchmarks.md,
"Generality": against the rule stand-in of da777bd, whose `simulation_create_from_base`
and `simulation_run_inline` are the same).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from datetime import UTC, datetime

from agents.services import simulation_create_from_base
from bench.machine import stamp
from bench.runs import bench_owner
from runtime.engine.inline import simulation_run_inline

START = datetime(2023, 2, 13, 7, 0, tzinfo=UTC)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench stand_in_cpu", description=__doc__)
    parser.add_argument("--steps", type=int, default=120)
    parser.add_argument("--warm", type=int, default=5)
    args = parser.parse_args(argv)
    simulation = simulation_create_from_base(
        owner=bench_owner(),
        base="base_the_ville_n25",
        seed=1,
        sec_per_step=60,
        name="bench stand-in cpu",
        config={"cognition": "paper"},
        start_time=START,
    )
    residents = simulation.agents.count()
    simulation_run_inline(simulation=simulation, steps=args.warm)
    cpu, wall = time.process_time(), time.monotonic()
    simulation_run_inline(simulation=simulation, steps=args.steps)
    cpu, wall = time.process_time() - cpu, time.monotonic() - wall
    report = {
        **stamp(),
        "backend": "offline",
        "simulation": simulation.pk,
        "residents": residents,
        "steps": args.steps,
        "cpu_seconds": round(cpu, 2),
        "wall_seconds": round(wall, 2),
        "cpu_ms_per_resident_step": round(cpu * 1000 / (args.steps * residents), 3),
        "load_average": [round(x, 1) for x in os.getloadavg()],
    }
    print(json.dumps(report, indent=2))
