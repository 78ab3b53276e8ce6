"""The estimate before a run against the run: `python -m bench estimate [--hours H]
[--earlier N] [--policy] [--latency L]`.

Runs N earlier simulations of base_the_ville_n25 (the paper's cognition, from 07:30, seeds
1..N) for H sim hours through a private real worker, offline, then a new one (seed N+1):
its estimate for H hours (`llm.estimate`, from the earlier runs' ledger, and the default
table as if there were none) is taken before it runs, and compared with what its ledger
shows after. With `--policy` a second new run (seed N+2) goes through the policy server
(the `openai` backend over HTTP), estimated from the same offline runs. Counts, not
timings: a loaded machine gives the same numbers, except the wall seconds.
"""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime
from typing import Any

from django.contrib.auth.models import User
from django.db.models import Sum

from agents.services import simulation_create_from_base
from bench.latency import policy_server_process
from bench.machine import stamp
from bench.runs import run_through_worker
from llm import estimate
from llm.models import ModelCall
from llm.settlement import ABANDONED
from world.events import SIMULATION_STEPPED
from world.models import Simulation


def _walls(run: Simulation, wall: float, asked: list[datetime]) -> dict[str, float]:
    """The run's wall seconds: from asking (the worker up) to its last step's commit, as
    a user of a running deployment waits; and with the private worker's start and stop."""
    last = run.events.filter(kind=SIMULATION_STEPPED).order_by("-seq").values("created_at")
    committed = last[0]["created_at"] if last else asked[0]
    return {
        "wall_seconds": round((committed - asked[0]).total_seconds(), 1),
        "with_worker_start_seconds": round(wall, 1),
    }


N25 = "base_the_ville_n25"
START = datetime(2023, 2, 13, 7, 30, tzinfo=UTC)
OWNER = "bench-estimate"


def actual(simulation: Simulation, since: datetime) -> dict[str, Any]:
    """The run's billed calls and tokens (those made since `since`)."""
    calls = ModelCall.objects.filter(
        simulation=simulation, created_at__gte=since, finished_at__isnull=False
    ).exclude(error=ABANDONED)
    sums = calls.aggregate(p=Sum("prompt_tokens"), c=Sum("completion_tokens"))
    return {"calls": calls.count(), "tokens": (sums["p"] or 0) + (sums["c"] or 0)}


def _new(owner: User, seed: int) -> Simulation:
    return simulation_create_from_base(
        owner=owner,
        base=N25,
        seed=seed,
        name=f"bench estimate seed {seed}",
        config={"cognition": "paper"},
        start_time=START,
    )


def _error(estimated: float, measured: int) -> float:
    return round((estimated - measured) / measured, 3) if measured else 0.0


def _compare(found: dict[str, Any], measured: dict[str, Any]) -> dict[str, Any]:
    errors = {k: _error(found[k]["expected"], measured[k]) for k in ("calls", "tokens")}
    wall = found["wall_seconds"]
    return {
        "wall_error": _error(wall["expected"], measured["wall_seconds"]) if wall else None,
        "estimate": {k: found[k] for k in ("basis", "runs", "calls", "tokens", "wall_seconds")},
        "error": errors,
        "within_25_percent": all(abs(e) <= 0.25 for e in errors.values()),
    }


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="bench estimate")
    parser.add_argument("--hours", type=float, default=1.0)
    parser.add_argument("--earlier", type=int, default=2, help="earlier runs of the base")
    parser.add_argument(
        "--policy", action="store_true", help="also a new run through the policy server"
    )
    parser.add_argument("--latency", default="fixed:0.05", help="the policy server's latency")
    args = parser.parse_args(argv)
    owner, _ = User.objects.get_or_create(username=OWNER)
    Simulation.objects.filter(owner=owner).delete()  # a fresh ledger of the base
    kinds = ["offline", *(["policy server"] if args.policy else [])]
    targets = [_new(owner, seed=args.earlier + 1 + i) for i in range(len(kinds))]
    steps = round(args.hours * 3600 / targets[0].sec_per_step)
    default = estimate.simulation_estimate(simulation=targets[0], hours=args.hours)
    earlier = []
    for seed in range(1, args.earlier + 1):
        run = _new(owner, seed)
        since, asked = datetime.now(UTC), list[datetime]()
        wall = run_through_worker(run, steps, asked=asked)
        earlier.append({"seed": seed, **_walls(run, wall, asked), **actual(run, since)})
    new_runs = []
    for kind, target in zip(kinds, targets, strict=True):
        found = estimate.simulation_estimate(simulation=target, hours=args.hours)
        since, asked = datetime.now(UTC), list[datetime]()
        if kind == "policy server":
            with policy_server_process(args.latency, 8) as server:
                env = {k: "true" if v is True else str(v) for k, v in server.items()}
                wall = run_through_worker(target, steps, env=env, asked=asked)
        else:
            wall = run_through_worker(target, steps, asked=asked)
        measured = {**actual(target, since), **_walls(target, wall, asked)}
        new_runs.append(
            {
                "run": kind,
                "seed": target.seed,
                "status": target.status,
                "actual": measured,
                **_compare(found, measured),
                "default_table_error": _compare(default, measured)["error"],
            }
        )
    report = {
        **stamp(),
        "bench": "estimate",
        "base": N25,
        "hours": args.hours,
        "earlier": earlier,
        "default_table": {k: default[k] for k in ("calls", "tokens")},
        "new_runs": new_runs,
    }
    print(json.dumps(report, indent=2, default=str))
