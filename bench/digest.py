"""A run's event log digest: `python -m bench digest [--engine E] [--hours H] [--seed N]`.

Runs base_the_ville_n25 with the paper's cognition and the offline backend (rules,
deterministic for a seed) from 2023-02-13 00:00 for `--hours` sim hours (48: two days,
17,280 steps) in this process on the engine `--engine` names, and prints the log's
digest (`bench.latency.log_digest`: each event's step, kind, resident and payload, in
order). Two runs of one seed wrote the same log, byte for byte, when their digests are
equal: run it on two commits, or on both engines, to show a change left the log alone.
"""

from __future__ import annotations

import argparse
import json
import time
from datetime import UTC, datetime

from django.conf import settings

from agents.services import simulation_create_from_base
from bench.latency import log_digest
from bench.machine import stamp
from bench.runs import bench_owner
from runtime.engine import simulation_run_inline
from runtime.engine.choice import ENGINES
from world.models import Event

N25 = "base_the_ville_n25"
MIDNIGHT = datetime(2023, 2, 13, 0, 0, tzinfo=UTC)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench digest", description=__doc__)
    parser.add_argument("--engine", choices=sorted(ENGINES), default="barrier")
    parser.add_argument("--hours", type=float, default=48.0)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args(argv)
    if settings.SMALLVILLE_LLM_BACKEND != "offline":
        parser.error("the digest is of the offline backend's run: unset SMALLVILLE_LLM_BACKEND")
    simulation = simulation_create_from_base(
        owner=bench_owner(),
        base=N25,
        seed=args.seed,
        name=f"bench digest {args.engine} {args.hours:g}h",
        config={"cognition": "paper"},
        start_time=MIDNIGHT,
    )
    steps = round(args.hours * 3600 / simulation.sec_per_step)
    saved = settings.SMALLVILLE_ENGINE
    settings.SMALLVILLE_ENGINE = args.engine
    try:
        started = time.perf_counter()
        simulation_run_inline(simulation=simulation, steps=steps)
        elapsed = time.perf_counter() - started
    finally:
        settings.SMALLVILLE_ENGINE = saved
    report = {
        **stamp(),
        "base": N25,
        "cognition": "paper",
        "backend": "offline",
        "engine": args.engine,
        "seed": args.seed,
        "sim_hours": args.hours,
        "steps": simulation.step,
        "status": simulation.status,
        "events": Event.objects.filter(simulation=simulation).count(),
        "digest": log_digest(simulation),
        "wall_seconds": round(elapsed, 1),
        "simulation": simulation.pk,
    }
    print(json.dumps(report, indent=2))
