"""A run's event log digest: `python -m bench digest [--engine E] [--hours H] [--seed N]`.

Runs base_the_ville_n25 with the paper's cognition and the offline backend (rules,
deterministic for a seed) from 2023-02-13 00:00 for `--hours` sim hours (48: two days,
17,280 steps) in this process on the engine `--engine` names, and prints the log's
digest (`bench.latency.log_digest`: each event's step, kind, resident and payload, in
order). Two runs of one seed wrote the same log, byte for byte, when their digests are
equal: run it on two commits, or on both engines, to show a change left the log alone.
`--simulation ID` digests a run made before instead, and `--through-step N` only the
events up to step N (a run stopped later begins with the same events as one stopped there).
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
from world.models import Event, Simulation

N25 = "base_the_ville_n25"
MIDNIGHT = datetime(2023, 2, 13, 0, 0, tzinfo=UTC)


def run(*, engine: str, hours: float, seed: int) -> tuple[Simulation, float]:
    """A new n25 simulation run for `hours` on `engine` in this process; its wall seconds."""
    simulation = simulation_create_from_base(
        owner=bench_owner(),
        base=N25,
        seed=seed,
        name="bench digest",  # in the log: one name, whatever the engine and span
        config={"cognition": "paper"},
        start_time=MIDNIGHT,
    )
    steps = round(hours * 3600 / simulation.sec_per_step)
    saved = settings.SMALLVILLE_ENGINE
    settings.SMALLVILLE_ENGINE = engine
    try:
        started = time.perf_counter()
        simulation_run_inline(simulation=simulation, steps=steps)
        return simulation, time.perf_counter() - started
    finally:
        settings.SMALLVILLE_ENGINE = saved


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench digest", description=__doc__)
    parser.add_argument("--engine", choices=sorted(ENGINES), default="barrier")
    parser.add_argument("--hours", type=float, default=48.0)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--simulation", type=int, default=None, help="digest, do not run")
    parser.add_argument("--through-step", type=int, default=None)
    args = parser.parse_args(argv)
    if args.simulation is not None:
        simulation, elapsed = Simulation.objects.get(pk=args.simulation), None
    elif settings.SMALLVILLE_LLM_BACKEND != "offline":
        parser.error("the digest is of the offline backend's run: unset SMALLVILLE_LLM_BACKEND")
    else:
        simulation, elapsed = run(engine=args.engine, hours=args.hours, seed=args.seed)
    simulation.refresh_from_db()
    events = Event.objects.filter(simulation=simulation)
    if args.through_step is not None:
        events = events.filter(step__lte=args.through_step)
    report = {
        **stamp(),
        "simulation": simulation.pk,
        "engine": None if elapsed is None else args.engine,
        "seed": simulation.seed,
        "steps": simulation.step,
        "status": simulation.status,
        "through_step": args.through_step,
        "events": events.count(),
        "digest": log_digest(simulation, through_step=args.through_step),
        "wall_seconds": None if elapsed is None else round(elapsed, 1),
    }
    print(json.dumps(report, indent=2))
