"""What a run bills through worker processes: `python -m bench billing [--workers 1,2,4]
[--hours H] [--base B] [--latency L]`.

Runs the same simulation (the paper's cognition from 07:30, `--base` default the
three-resident one) through a private worker with 1, 2 and 4 processes (a prefork pool,
one resident a shard, so residents' steps and the calls sent ahead for them fall between
processes) against the policy server in a process of its own, and reports from the
ledger, per run: the calls billed and their tokens, per agent per sim hour, and the
identical (task, prompt) calls asked again. Counts, not timings: a loaded machine gives
the same numbers.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from datetime import UTC, datetime
from typing import Any

from django.db.models import Sum

from agents.services import simulation_create_from_base
from bench.latency import policy_server_process
from bench.machine import stamp
from bench.runs import bench_owner, run_through_worker
from llm.models import ModelCall
from llm.settlement import ABANDONED

N3 = "base_the_ville_isabella_maria_klaus"
START = datetime(2023, 2, 13, 7, 30, tzinfo=UTC)


def billed(simulation_id: int, since: datetime) -> dict[str, Any]:
    """The run's calls billed (ended, not abandoned) and the (task, prompt) asked again."""
    calls = (
        ModelCall.objects.filter(simulation_id=simulation_id, created_at__gte=since)
        .exclude(finished_at__isnull=True)
        .exclude(error=ABANDONED)
        .exclude(task="embedding")
    )
    tokens = calls.aggregate(p=Sum("prompt_tokens"), c=Sum("completion_tokens"))
    asked = Counter(calls.values_list("task", "prompt"))
    again = Counter({task: 0 for task, _ in asked})
    for (task, _), n in asked.items():
        again[task] += n - 1
    return {
        "calls": calls.count(),
        "tokens": (tokens["p"] or 0) + (tokens["c"] or 0),
        "asked_again": sum(again.values()),
        "asked_again_by_task": {task: n for task, n in again.most_common() if n},
    }


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="bench billing")
    parser.add_argument("--workers", default="1,2,4", help="worker processes, comma-separated")
    parser.add_argument("--hours", type=float, default=0.5)
    parser.add_argument("--base", default=N3)
    parser.add_argument("--latency", default="fixed:0.05")
    args = parser.parse_args(argv)
    owner = bench_owner()
    runs = []
    with policy_server_process(args.latency, 8) as server:
        env = {k: "true" if v is True else str(v) for k, v in server.items()}
        env["SMALLVILLE_SHARD_SIZE"] = "1"
        for workers in (int(n) for n in args.workers.split(",")):
            simulation = simulation_create_from_base(
                owner=owner,
                base=args.base,
                seed=5,
                name=f"bench billing x{workers}",
                config={"cognition": "paper"},
                start_time=START,
            )
            steps = round(args.hours * 3600 / simulation.sec_per_step)
            since = datetime.now(UTC)
            run_through_worker(simulation, steps, env=env, concurrency=workers)
            agents = simulation.agents.count()
            found = billed(simulation.pk, since)
            per = agents * args.hours
            runs.append(
                {
                    "worker_processes": workers,
                    "steps": simulation.step,
                    **found,
                    "calls_per_agent_per_sim_hour": round(found["calls"] / per, 2),
                    "tokens_per_agent_per_sim_hour": round(found["tokens"] / per),
                }
            )
    report = {
        **stamp(),
        "base": args.base,
        "agents": agents,
        "start": START.isoformat(),
        "sim_hours": args.hours,
        "latency": args.latency,
        "runs": runs,
    }
    print(json.dumps(report, indent=2))
