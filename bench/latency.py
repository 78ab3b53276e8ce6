"""The engines against a slow model: `python -m bench latency [--hours H] [--engine E] [...]`.

Runs base_the_ville_n25 with the paper's cognition from 2023-02-13 00:00 for `--hours`
sim hours (default 1) in this process (`simulation_run_inline`; `--engine barrier`: each
step waits for all its agents' decisions; `--engine ahead`: residents that cannot meet
run ahead of each other) through the `openai` backend against the policy server
(llm/policy_server.py), which answers each call as the offline policy would after
`--latency` (default `fixed:1`, one second a call), so the calls are those of an offline
run; `--residents 500` adds copies of the 25 (as `bench engine` does) at their tiles.
Reports the wall time, the calls, how many calls were in flight over the run
(sampled every 50 ms from the ledger's admission and finish times: mean, p95, max), and
the chain bound: per step, the longest chain of one resident's calls (those someone
waits on: background calls, ratings sent ahead and reflections, are left out), summed over the
steps, which is what even a barrier engine that costs nothing must wait for; and the
resident bound, the busiest resident's calls one after another, which is what even an
engine that runs residents ahead of each other must wait for.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections import defaultdict
from datetime import UTC, datetime
from typing import Any

import numpy as np
from django.conf import settings
from django.contrib.auth.models import User

from agents.engine import simulation_run_inline
from agents.events import AGENT_CREATED, AGENT_MOVED
from agents.services import simulation_create_from_base
from bench.engine import copies_add
from bench.machine import stamp
from llm.models import ModelCall
from llm.policy_server import PolicyServer
from world.models import Event, Simulation

N25 = "base_the_ville_n25"
MIDNIGHT = datetime(2023, 2, 13, 0, 0, tzinfo=UTC)
SAMPLE = 0.05  # seconds between samples of the calls in flight


def run(
    owner: User,
    server: PolicyServer,
    hours: float,
    engine: str,
    base: str = N25,
    residents: int = 0,
    importance_delay: int | None = None,
) -> tuple[Simulation, float, datetime]:
    """The run's simulation, wall seconds and start; its setup (rating the seed memories)
    is offline and not timed. `residents` above the base's: copies of them are added."""
    simulation = simulation_create_from_base(
        owner=owner,
        base=base,
        seed=5,
        name=f"bench latency {server.latency.spec}",
        config={"cognition": "paper"}
        if importance_delay is None
        else {"cognition": "paper", "importance_delay": importance_delay},
        start_time=MIDNIGHT,
    )
    if residents > simulation.agents.count():
        copies_add(simulation, residents)
    steps = round(hours * 3600 / simulation.sec_per_step)
    chosen = {**server.settings(), "SMALLVILLE_ENGINE": engine}
    saved = {key: getattr(settings, key) for key in chosen}
    for key, value in chosen.items():
        setattr(settings, key, value)
    try:
        since = datetime.now(UTC)
        started = time.perf_counter()
        simulation_run_inline(simulation=simulation, steps=steps)
        elapsed = time.perf_counter() - started
    finally:
        for key, value in saved.items():
            setattr(settings, key, value)
    simulation.refresh_from_db()
    return simulation, elapsed, since


def in_flight(calls: list[dict[str, Any]]) -> dict[str, Any]:
    """Calls in flight, sampled every SAMPLE seconds from the first admission to the last
    answer: mean, p95 and max."""
    spans = [(c["created_at"], c["finished_at"]) for c in calls if c["finished_at"]]
    if not spans:
        return {"mean": 0, "p95": 0, "max": 0, "samples": 0}
    first = min(start for start, _ in spans)
    points = sorted(
        [((s - first).total_seconds(), 1) for s, _ in spans]
        + [((f - first).total_seconds(), -1) for _, f in spans]
    )
    end = points[-1][0]
    counts, level, index, t = [], 0, 0, 0.0
    while t <= end:
        while index < len(points) and points[index][0] <= t:
            level += points[index][1]
            index += 1
        counts.append(level)
        t += SAMPLE
    counts.sort()
    return {
        "mean": round(sum(counts) / len(counts), 2),
        "p95": counts[min(len(counts) - 1, math.ceil(0.95 * len(counts)) - 1)],
        "max": counts[-1],
        "samples": len(counts),
    }


def chain_bound(calls: list[dict[str, Any]]) -> int:
    """Per step, the most calls one resident made (they run one after another); summed."""
    per_step: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for call in calls:
        per_step[call["step"]][call["agent_name"]] += 1
    return sum(max(residents.values()) for residents in per_step.values())


def resident_bound(calls: list[dict[str, Any]]) -> int:
    """The most calls one resident made in the run."""
    per_resident: dict[str, int] = defaultdict(int)
    for call in calls:
        per_resident[call["agent_name"]] += 1
    return max(per_resident.values(), default=0)


def dependency_bound(
    calls: list[dict[str, Any]],
    names: list[str],
    tiles: dict[int, list[tuple[str, int, int]]],
    *,
    reach: int,
    steps: int,
) -> int:
    """The longest chain of calls through residents that could perceive each other: per
    step, a resident's chain starts when its own previous step and those of every resident
    within `reach` tiles (Chebyshev) of it are done, and adds its calls of the step. What a
    scheduler that knew where everyone will stand must still wait for; it lies between the
    resident bound (nobody waits on anyone) and the chain bound (everyone waits on all).
    `tiles`: per step, the (name, x, y) where residents stand from that step on."""
    index = {name: i for i, name in enumerate(names)}
    cost: dict[int, np.ndarray] = {}
    for call in calls:
        row = cost.setdefault(call["step"], np.zeros(len(names)))
        row[index[call["agent_name"]]] += 1
    where = np.zeros((len(names), 2), dtype=np.int64)
    done = np.zeros(len(names))
    for step in range(steps + 1):
        for name, x, y in tiles.get(step, ()):
            where[index[name]] = (x, y)
        apart = np.abs(where[:, None, :] - where[None, :, :]).max(axis=2)
        done = np.where(apart <= reach, done[None, :], 0.0).max(axis=1)
        if step in cost:
            done = done + cost[step]
    return int(done.max(initial=0))


def tiles_by_step(simulation: Simulation) -> dict[int, list[tuple[str, int, int]]]:
    """Where residents stand: per step of the log, the (name, x, y) of those placed or moved
    (the state a step decides from is the log up to it)."""
    found: dict[int, list[tuple[str, int, int]]] = defaultdict(list)
    rows = (
        Event.objects.filter(simulation=simulation, kind__in=(AGENT_CREATED, AGENT_MOVED))
        .order_by("seq")
        .values_list("step", "agent", "payload__tile")
    )
    for step, name, tile in rows.iterator(chunk_size=20_000):
        found[step].append((name, tile[0], tile[1]))
    return found


def _ratio(wall: float, bound: float) -> float | None:
    return round(wall / bound, 2) if bound else None  # no bound at zero latency


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench latency", description=__doc__)
    parser.add_argument("--hours", type=float, default=1.0)
    parser.add_argument("--latency", default="fixed:1", help="fixed:S or lognormal:MEAN:P95")
    parser.add_argument("--slots", type=int, default=0, help="server slots (0: no limit)")
    parser.add_argument(
        "--engine", choices=["barrier", "ahead"], default="barrier", help="SMALLVILLE_ENGINE"
    )
    parser.add_argument("--base", default=N25)
    parser.add_argument(
        "--residents", type=int, default=0, help="the base's residents and copies, this many"
    )
    parser.add_argument(
        "--importance-delay",
        type=int,
        default=None,
        help="steps before a memory's rating is applied (config; 0: rated in the step)",
    )
    args = parser.parse_args(argv)
    owner, _ = User.objects.get_or_create(username="bench")
    with PolicyServer(latency=args.latency, slots=args.slots) as server:
        simulation, elapsed, since = run(
            owner,
            server,
            args.hours,
            args.engine,
            args.base,
            args.residents,
            args.importance_delay,
        )
    calls: list[dict[str, Any]] = [
        dict(row)
        for row in ModelCall.objects.filter(simulation=simulation, created_at__gte=since).values(
            "step", "agent_name", "created_at", "finished_at", "priority"
        )
    ]
    # Background calls (ratings sent ahead, reflections) wait on nobody: not in a bound.
    critical = [c for c in calls if c["priority"] == 0]
    chains = chain_bound(critical)
    busiest = resident_bound(critical)
    vision = max(simulation.agents.values_list("vision_radius", flat=True))
    dependent = dependency_bound(
        critical,
        list(simulation.agents.order_by("name").values_list("name", flat=True)),
        tiles_by_step(simulation),
        reach=vision,
        steps=simulation.step,
    )
    per_call = server.latency.mean
    report = {
        **stamp(),
        "agents": simulation.agents.count(),
        "cognition": "paper",
        "importance_delay": simulation.config["importance_delay"],
        "engine": args.engine,
        "calls_in_flight_cap": settings.SMALLVILLE_CALLS_IN_FLIGHT,
        "start": MIDNIGHT.isoformat(),
        "sim_hours": args.hours,
        "steps": simulation.step,
        "status": simulation.status,
        "reason": simulation.status_reason,
        "latency": server.latency.spec,
        "slots": args.slots or "no limit",
        "agent_threads": settings.SMALLVILLE_AGENT_THREADS,
        "wall_seconds": round(elapsed, 1),
        "model_calls": len(calls),
        "background_calls": len(calls) - len(critical),
        "steps_with_calls": len({c["step"] for c in calls}),
        "calls_in_flight": in_flight(calls),
        "chain_bound_calls": chains,
        # What the model's answers alone cost the run, with every resident overlapped.
        "chain_bound_seconds": round(chains * per_call, 1),
        "wall_over_chain_bound": _ratio(elapsed, chains * per_call),
        # The busiest resident's calls one after another: what an engine that lets
        # residents run ahead of each other (and costs nothing) must wait for.
        # Through residents within sight of each other (where they stood in the log): what
        # a scheduler that knew who will perceive whom must wait for.
        "dependency_bound_calls": dependent,
        "dependency_bound_seconds": round(dependent * per_call, 1),
        "wall_over_dependency_bound": _ratio(elapsed, dependent * per_call),
        "resident_bound_calls": busiest,
        "resident_bound_seconds": round(busiest * per_call, 1),
        "wall_over_resident_bound": _ratio(elapsed, busiest * per_call),
    }
    print(json.dumps(report, indent=2, default=str))
