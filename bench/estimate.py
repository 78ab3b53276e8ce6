"""The estimate before a run against the run: `python -m bench estimate [--hours H]
[--earlier N] [--policy] [--latency L]`.

Runs N earlier simulations of base_the_ville_n25 (the paper's cognition, from 07:30, seeds
1..N) for H sim hours through a private real worker, offline, then a new one (seed N+1):
its estimate for H hours (`llm.estimate`, from the earlier runs' ledger, and the default
table as if there were none) is taken before it runs, and compared with what its ledger
shows after. With `--policy` the new run goes through the policy server (the `openai`
backend over HTTP) instead. Counts, not timings: a loaded machine gives the same numbers,
except the wall seconds.
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
from llm.services import ABANDONED
from world.models import Simulation

N25 = "base_the_ville_n25"
START = datetime(2023, 2, 13, 7, 30, tzinfo=UTC)
OWNER = "bench-estimate"


def actual(simulation: Simulation, since: datetime) -> dict[str, Any]:
    """The run's billed calls and tokens (those made since `since`), and its wall span."""
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


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="bench estimate")
    parser.add_argument("--hours", type=float, default=1.0)
    parser.add_argument("--earlier", type=int, default=2, help="earlier runs of the base")
    parser.add_argument("--policy", action="store_true", help="the new run on the policy server")
    parser.add_argument("--latency", default="fixed:0.05", help="the policy server's latency")
    args = parser.parse_args(argv)
    owner, _ = User.objects.get_or_create(username=OWNER)
    Simulation.objects.filter(owner=owner).delete()  # a fresh ledger of the base
    target = _new(owner, seed=args.earlier + 1)
    steps = round(args.hours * 3600 / target.sec_per_step)
    default = estimate.simulation_estimate(simulation=target, hours=args.hours)
    earlier = []
    for seed in range(1, args.earlier + 1):
        run = _new(owner, seed)
        since = datetime.now(UTC)
        wall = run_through_worker(run, steps)
        earlier.append({"seed": seed, "wall_seconds": round(wall, 1), **actual(run, since)})
    found = estimate.simulation_estimate(simulation=target, hours=args.hours)
    since = datetime.now(UTC)
    if args.policy:
        with policy_server_process(args.latency, 8) as server:
            env = {k: "true" if v is True else str(v) for k, v in server.items()}
            wall = run_through_worker(target, steps, env=env)
    else:
        wall = run_through_worker(target, steps)
    measured = actual(target, since)
    report = {
        **stamp(),
        "bench": "estimate",
        "base": N25,
        "hours": args.hours,
        "new_run": "policy server" if args.policy else "offline",
        "earlier": earlier,
        "actual": {**measured, "wall_seconds": round(wall, 1)},
        "estimate": {k: found[k] for k in ("basis", "runs", "calls", "tokens", "wall_seconds")},
        "error": {
            "calls": _error(found["calls"]["expected"], measured["calls"]),
            "tokens": _error(found["tokens"]["expected"], measured["tokens"]),
        },
        "default_table": {
            "calls": default["calls"],
            "tokens": default["tokens"],
            "error": {
                "calls": _error(default["calls"]["expected"], measured["calls"]),
                "tokens": _error(default["tokens"]["expected"], measured["tokens"]),
            },
        },
    }
    within = all(abs(e) <= 0.25 for e in report["error"].values())
    report["within_25_percent"] = within
    print(json.dumps(report, indent=2, default=str))
