"""An experiment's wall time on one worker and on two, and runs per hour: `python -m bench
experiment [--base B] [--hours H] [--seeds N] [--workers 1,2]`.

The same experiment (two variants: the base as it is, and reflection turned off; N seeds;
H sim hours) is defined afresh and run once per worker count, each worker a Celery process
of concurrency 1 on a private queue, the experiment's limit of runs at once equal to the
workers. Prints the wall time of each, their ratio and runs per hour. The runs' logs are
the same whatever the workers (tests/experiments/test_worker.py), so the ratio is the
speed-up alone. Run it with no other experiment running on the database: every worker's
watchdog advances every running experiment."""

from __future__ import annotations

import argparse
import json
import os
import time
from datetime import timedelta
from typing import Any

from django.conf import settings

from agents.bases.selectors import base_resolve
from experiments.models import Experiment, ExperimentStatus
from experiments.services import experiment_create, experiment_start
from runtime.workerproc import WorkerProcess, private_worker

from .machine import stamp
from .runs import bench_owner

DEFAULT_BASE = "base_the_ville_isabella_maria_klaus"


def _definition(base: str, hours: float, seeds: int, workers: int) -> dict[str, Any]:
    owner = bench_owner()
    row = base_resolve(user=owner, base=base)
    until = row.start_time + timedelta(hours=hours)
    return {
        "name": f"bench: {workers} worker(s)",
        "start": {"base": row.pk},
        "span": {"until": until.isoformat()},
        "seeds": seeds,
        "variants": [
            {"name": "as it is"},
            {"name": "no reflection", "config": {"ablations": ["no_reflection"]}},
        ],
        "concurrency": workers,
    }


def _run(base: str, hours: float, seeds: int, workers: int, limit: float) -> dict[str, Any]:
    env = {"SMALLVILLE_WATCHDOG_SECONDS": "1"}
    with private_worker(env) as first:
        extra = [WorkerProcess(first.queue, first.env) for _ in range(workers - 1)]
        for i, worker in enumerate(extra):
            worker.log = first.log.with_name(f"{first.log.stem}-{i + 2}.log")
            worker.start()
        try:
            experiment = experiment_create(
                owner=bench_owner(), data=_definition(base, hours, seeds, workers)
            )
            load = os.getloadavg()[0]
            began = time.monotonic()
            experiment_start(experiment=experiment)
            while time.monotonic() - began < limit:
                experiment.refresh_from_db()
                if experiment.status != ExperimentStatus.RUNNING:
                    break
                time.sleep(0.5)
            wall = time.monotonic() - began
        finally:
            for worker in extra:
                worker.stop()
    runs = experiment.runs.count()
    done = experiment.runs.filter(status="done").count()
    steps = sum(
        r.simulation.step for r in experiment.runs.select_related("simulation") if r.simulation
    )
    return {
        "workers": workers,
        "experiment": experiment.pk,
        "status": Experiment.objects.get(pk=experiment.pk).status,
        "runs": runs,
        "runs_done": done,
        "steps": steps,
        "wall_s": round(wall, 1),
        "runs_per_hour": round(done / wall * 3600, 1) if wall else None,
        "load_1min_at_start": round(load, 2),
    }


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench experiment")
    parser.add_argument("--base", default=DEFAULT_BASE)
    parser.add_argument("--hours", type=float, default=3.0, help="sim hours each run goes")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--workers", default="1,2", help="worker counts, comma separated")
    parser.add_argument("--limit", type=float, default=3600, help="wall seconds per experiment")
    args = parser.parse_args(argv)
    counts = [int(n) for n in args.workers.split(",")]
    results = [_run(args.base, args.hours, args.seeds, n, args.limit) for n in counts]
    by = {r["workers"]: r["wall_s"] for r in results}
    report = {
        **stamp(),
        "backend": settings.SMALLVILLE_LLM_BACKEND,
        "base": args.base,
        "hours": args.hours,
        "seeds": args.seeds,
        "variants": 2,
        "results": results,
        "speedup_2_over_1": round(by[1] / by[2], 2) if 1 in by and 2 in by and by[2] else None,
        "load_1min_at_end": round(os.getloadavg()[0], 2),
    }
    print(json.dumps(report, indent=1))
