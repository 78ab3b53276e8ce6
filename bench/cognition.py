"""The paper's cognition at work: `python -m bench cognition [--hours H] [--latency-only]`.

Part one runs base_the_ville_n25 with the paper's cognition and the offline backend from
midnight for `--hours` sim hours (24: the full sim day, 8,640 steps) through a real
Celery worker, and reports model calls and tokens per agent per sim hour, by task (the
offline backend renders and counts the prompts the openai backend would send), plus the
reflections per agent per sim day and the deepest reflection tree.

Part two points the openai backend at the policy server (llm/policy_server.py), which
answers each call as the offline policy would after 300 ms, so the run makes the calls
and lives the hour of an offline run, and times 25 agents over one sim hour from 07:00,
with the agents of a shard decided concurrently (their model calls overlap) and then one
after another.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db.models import Count, Max, Sum

from agents.services import simulation_create_from_base
from bench.bounds import chain_bound, decision_chains
from bench.machine import stamp
from llm.models import ModelCall
from llm.policy_server import PolicyServer
from memories.models import Memory, MemoryKind
from runtime.engine import simulation_run, simulation_run_inline
from runtime.workerproc import private_worker
from world.models import Simulation, SimulationStatus

N25 = "base_the_ville_n25"
REFERENCE = {"calls_per_agent_hour": 54, "tokens_per_agent_hour": 26_000}
TARGET = {"calls_per_agent_hour": 10, "tokens_per_agent_hour": 5_000}


def usage(simulation: Simulation, agents: int, hours: float, since: datetime) -> dict[str, Any]:
    """Model calls and tokens per agent per sim hour, by task, for calls after `since`."""
    rows = (
        ModelCall.objects.filter(simulation=simulation, created_at__gte=since)
        .values("task")
        .annotate(
            calls=Count("id"), prompt=Sum("prompt_tokens"), completion=Sum("completion_tokens")
        )
    )
    per = agents * hours
    by_task = {
        r["task"]: {
            "calls": round(r["calls"] / per, 2),
            "tokens": round(((r["prompt"] or 0) + (r["completion"] or 0)) / per),
        }
        for r in rows
    }
    total_calls = sum(r["calls"] for r in by_task.values())
    total_tokens = sum(r["tokens"] for r in by_task.values())
    return {
        "per_agent_per_sim_hour": {"calls": round(total_calls, 2), "tokens": total_tokens},
        "by_task": dict(sorted(by_task.items(), key=lambda kv: -kv[1]["calls"])),
        "target": TARGET,
        "met": total_calls <= TARGET["calls_per_agent_hour"]
        and total_tokens <= TARGET["tokens_per_agent_hour"],
        "reference_implementation": REFERENCE,
    }


def reflections(simulation: Simulation, hours: float) -> dict[str, Any]:
    rows = Memory.objects.filter(simulation=simulation, kind=MemoryKind.REFLECTION)
    per_agent: dict[str, int] = defaultdict(int)
    for name, count in rows.values_list("agent__name").annotate(n=Count("id")):
        per_agent[name] = count
    agents = simulation.agents.count()
    days = hours / 24
    return {
        "reflection_memories_per_agent": dict(sorted(per_agent.items())),
        "agents_that_reflected": f"{len(per_agent)} of {agents}",
        "deepest_tree": rows.aggregate(d=Max("depth"))["d"] or 0,
        "sessions": _sessions(simulation, days),
    }


def _sessions(simulation: Simulation, days: float) -> Any:
    try:
        from agents.reflection.selectors import reflection_stats
    except ImportError:
        return "reflection not installed"
    stats = reflection_stats(simulation)
    stats["sim_days"] = days
    return stats


def full_day(owner: User, hours: float) -> dict[str, Any]:
    simulation = simulation_create_from_base(
        owner=owner, base=N25, seed=3, name="bench cognition day", config={"cognition": "paper"}
    )
    steps = int(hours * 3600 / simulation.sec_per_step)
    since = datetime.now(UTC)  # seed-memory importance is creation, not the day
    started = time.perf_counter()
    with private_worker(concurrency=2):
        simulation_run(simulation=simulation, steps=steps)
        while Simulation.objects.get(pk=simulation.pk).status == SimulationStatus.RUNNING:
            time.sleep(1)
    elapsed = time.perf_counter() - started
    simulation.refresh_from_db()
    agents = simulation.agents.count()
    return {
        "simulation": simulation.pk,
        "status": simulation.status,
        "reason": simulation.status_reason,
        "agents": agents,
        "sim_hours": hours,
        "steps": simulation.step,
        "wall_seconds": round(elapsed, 1),
        "agent_steps_per_s": round(agents * simulation.step / elapsed, 1),
        "conversations": simulation.conversations.count(),
        "model_usage": usage(
            simulation, agents, simulation.step * simulation.sec_per_step / 3600, since
        ),
        "reflection": reflections(simulation, hours),
    }


def latency_run(owner: User, threads: int, server: PolicyServer) -> dict[str, Any]:
    # The setup (rating the seed memories) is not timed: it runs offline.
    simulation = simulation_create_from_base(
        owner=owner,
        base=N25,
        seed=5,
        name=f"bench latency {threads} threads",
        config={"cognition": "paper"},
        start_time=datetime(2023, 2, 13, 7, 0, tzinfo=UTC),
    )
    for key, value in server.settings().items():
        setattr(settings, key, value)
    settings.SMALLVILLE_AGENT_THREADS = threads
    try:
        since = datetime.now(UTC)
        started = time.perf_counter()
        simulation_run_inline(simulation=simulation, steps=360)
        elapsed = time.perf_counter() - started
    finally:
        settings.SMALLVILLE_LLM_BACKEND = "offline"
        settings.SMALLVILLE_LLM_SEND_TASK = False
    calls: list[dict[str, Any]] = [
        dict(row)
        for row in ModelCall.objects.filter(simulation=simulation, created_at__gte=since).values(
            "step", "agent_name", "created_at", "finished_at"
        )
    ]
    return {
        "agent_threads": threads,
        "status": simulation.status,
        "reason": simulation.status_reason,
        "wall_seconds": round(elapsed, 1),
        "model_calls": len(calls),
        **_waits(calls, elapsed),
    }


def _waits(calls: list[dict[str, Any]], elapsed: float) -> dict[str, Any]:
    """Where the wall time went: ticks wait for their model calls (from the first call of
    the step to its last answer), and the rest is the engine's own work. The longest chain
    of one agent's calls in each step is what even perfect overlap must wait for."""
    by_step: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for call in calls:
        by_step[call["step"]].append(call)
    waiting = sum(
        (max(c["finished_at"] for c in cs) - min(c["created_at"] for c in cs)).total_seconds()
        for cs in by_step.values()
    )
    return {
        "steps_with_calls": len(by_step),
        "waiting_for_the_model_seconds": round(waiting, 1),
        "engine_seconds": round(elapsed - waiting, 1),
        "longest_chains_calls": chain_bound(decision_chains(calls)),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench cognition", description=__doc__)
    parser.add_argument("--hours", type=float, default=24.0)
    parser.add_argument("--latency-only", action="store_true")
    parser.add_argument("--day-only", action="store_true")
    args = parser.parse_args(argv)
    owner, _ = User.objects.get_or_create(username="bench")
    report: dict[str, Any] = {**stamp(), "backend_for_the_day": "offline", "cognition": "paper"}
    if not args.latency_only:
        report["day"] = full_day(owner, args.hours)
    if not args.day_only:
        # No slot limit: the server answers every call in 300 ms, however many at once.
        with PolicyServer(latency="fixed:0.3", slots=0) as server:
            concurrent = latency_run(owner, 25, server)
            sequential = latency_run(owner, 1, server)
        report["latency_300ms"] = {
            "agents": 25,
            "sim_hours": 1,
            "concurrent": concurrent,
            "one_after_another": sequential,
            "speedup": round(sequential["wall_seconds"] / concurrent["wall_seconds"], 1),
            "target_speedup": 10,
            # With an engine that cost nothing, the concurrent run would still wait for the
            # longest chain of calls in each step: the best speedup these calls allow.
            "speedup_bound_with_a_free_engine": round(
                sequential["model_calls"] / max(1, concurrent["longest_chains_calls"]), 1
            ),
        }
    print(json.dumps(report, indent=2, default=str))
