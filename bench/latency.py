"""The engines against a slow model: `python -m bench latency [--hours H] [--engine E] [...]`.

Runs base_the_ville_n25 with the paper's cognition from 2023-02-13 00:00 for `--hours`
sim hours (default 1) in this process (`simulation_run_inline`; `--engine barrier`: each
step waits for all its agents' decisions; `--engine ahead`: residents that cannot meet
run ahead of each other) through the `openai` backend against the policy server
(llm/policy_server.py), which answers each call as the offline policy would after
`--latency` (default `fixed:1`, one second a call), so the calls are those of an offline
run; `--residents 500` adds residents made up and spread over the town, homes and
workplaces drawn from it (`--town spread`, the default, bench.towns), or copies of the 25
at their tiles (`--town copies`, as the earliest figures were measured).
`--workers N` (with `--engine ahead`) spreads the groups over N Celery worker processes
(threads pools; runtime/engine/ahead/spread.py) instead of deciding them in this process.
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
import hashlib
import json
import math
import re
import subprocess
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User

from agents.bases.selectors import base_resolve
from agents.events import (
    AGENT_ACTING,
    AGENT_CREATED,
    AGENT_MOVED,
    CONVERSATION_HELD,
    OBJECT_STATE,
)
from agents.services import simulation_create_from_base
from bench.bounds import (
    chain_bound,
    decision_chains,
    dependency_bound,
    resident_bound,
    rule_bound,
    seen_change_bound,
)
from bench.embeddings import embedding_bound
from bench.machine import stamp
from bench.runs import run_spread
from bench.towns import TOWN_KINDS, TownKind, residents_add
from llm.ahead import ahead_settle
from llm.models import ModelCall
from llm.policy_server import Latency, client_settings
from llm.selectors import model_calls_ahead
from runtime.engine import simulation_run_inline
from runtime.engine.ahead.schedule import reach_of
from world.models import Event, Simulation

N25 = "base_the_ville_n25"
MIDNIGHT = datetime(2023, 2, 13, 0, 0, tzinfo=UTC)
SAMPLE = 0.05  # seconds between samples of the calls in flight


@contextmanager
def policy_server_process(latency: str, slots: int) -> Iterator[dict[str, object]]:
    """`manage.py policy_server` in a process of its own, as a model server is: its
    answers and HTTP cost this process nothing. Yields the settings that point at it."""
    command = [sys.executable, "manage.py", "policy_server", "--port", "0"]
    command += ["--latency", latency, "--slots", str(slots)]
    here = Path(__file__).resolve().parent.parent
    process = subprocess.Popen(command, cwd=here, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        found = re.search(r" at (http://\S+/v1) ", first)
        if found is None:
            raise RuntimeError(f"the policy server did not start: {first!r}")
        yield client_settings(found.group(1))
    finally:
        process.terminate()
        process.wait(timeout=30)


def run(
    owner: User,
    server: dict[str, object],
    hours: float,
    engine: str,
    base: str = N25,
    residents: int = 0,
    importance_delay: int | None = None,
    start: datetime = MIDNIGHT,
    in_flight_cap: int = 0,
    town: TownKind = "spread",
    workers: int = 0,
) -> tuple[Simulation, float, datetime, float]:
    """The run's simulation, wall seconds, start and the engine's CPU seconds; its setup
    (rating the seed memories) is offline and not timed. `residents` above the base's:
    residents are added, as `town` says (bench.towns). `workers`: the ahead engine spread
    over this many worker processes (else in this process)."""
    simulation = simulation_create_from_base(
        owner=owner,
        base=base,
        seed=5,
        name="bench latency",
        config={"cognition": "paper"}
        if importance_delay is None
        else {"cognition": "paper", "importance_delay": importance_delay},
        start_time=start,
    )
    if residents > simulation.agents.count():
        residents_add(simulation, residents, town=town)
    steps = round(hours * 3600 / simulation.sec_per_step)
    chosen = {**server, "SMALLVILLE_ENGINE": engine}
    if in_flight_cap:
        # Both engines keep this many decisions (and their calls) in flight; the barrier
        # decides a step's residents as one shard, as the other engine does them.
        chosen["SMALLVILLE_CALLS_IN_FLIGHT"] = in_flight_cap
        chosen["SMALLVILLE_AGENT_THREADS"] = in_flight_cap
        chosen["SMALLVILLE_SHARD_SIZE"] = max(settings.SMALLVILLE_SHARD_SIZE, residents)
    saved = {key: getattr(settings, key) for key in chosen}
    for key, value in chosen.items():
        setattr(settings, key, value)
    try:
        since = datetime.now(UTC)
        if workers:
            env = {k: "true" if v is True else str(v) for k, v in chosen.items()}
            cap = in_flight_cap or settings.SMALLVILLE_CALLS_IN_FLIGHT
            # Each worker decides its share of the groups at once; the first also runs
            # the simulation's tick.
            elapsed, cpu = run_spread(
                simulation, steps, env=env, workers=workers, concurrency=cap // workers + 1
            )
        else:
            cpu = time.process_time()
            started = time.perf_counter()
            simulation_run_inline(simulation=simulation, steps=steps)
            elapsed = time.perf_counter() - started
            cpu = time.process_time() - cpu
    finally:
        for key, value in saved.items():
            setattr(settings, key, value)
    simulation.refresh_from_db()
    return simulation, elapsed, since, cpu


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


def seen_changes(simulation: Simulation) -> dict[int, set[str]]:
    """Per step of the log, the residents whose events then others can see: a move, an
    action begun, an object changed, a conversation held (`bounds.seen_change_bound`)."""
    found: dict[int, set[str]] = defaultdict(set)
    kinds = (AGENT_MOVED, AGENT_ACTING, OBJECT_STATE, CONVERSATION_HELD)
    rows = (
        Event.objects.filter(simulation=simulation, kind__in=kinds)
        .exclude(agent="")
        .values_list("step", "agent")
    )
    for step, name in rows.iterator(chunk_size=20_000):
        found[step].add(name)
    return found


def log_digest(simulation: Simulation, *, through_step: int | None = None) -> str:
    """A hash of the log (each event's step, kind, resident and payload, in order): two
    runs wrote the same log when their digests are equal. `through_step`: of the events
    up to that step only (a longer run's log begins with a shorter one's)."""
    digest = hashlib.sha256()
    events = Event.objects.filter(simulation=simulation)
    if through_step is not None:
        events = events.filter(step__lte=through_step)
    rows = events.order_by("seq").values_list("step", "kind", "agent", "payload")
    for row in rows.iterator(chunk_size=20_000):
        digest.update(json.dumps(row, sort_keys=True, default=str).encode())
    return digest.hexdigest()[:16]


def _ratio(wall: float, bound: float) -> float | None:
    return round(wall / bound, 2) if bound else None  # no bound at zero latency


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench latency", description=__doc__)
    parser.add_argument("--hours", type=float, default=1.0)
    parser.add_argument("--start", default="00:00", help="sim time on Feb 13, HH:MM")
    parser.add_argument("--latency", default="fixed:1", help="fixed:S or lognormal:MEAN:P95")
    parser.add_argument("--slots", type=int, default=0, help="server slots (0: no limit)")
    parser.add_argument(
        "--engine", choices=["barrier", "ahead"], default="barrier", help="SMALLVILLE_ENGINE"
    )
    parser.add_argument("--base", default=N25)
    parser.add_argument(
        "--in-flight",
        type=int,
        default=0,
        help="decisions and calls in flight at once (default: SMALLVILLE_CALLS_IN_FLIGHT)",
    )
    parser.add_argument(
        "--residents", type=int, default=0, help="the base's residents and more, this many"
    )
    parser.add_argument(
        "--town",
        choices=TOWN_KINDS,
        default="spread",
        help="the residents above the base's: made up and spread, or copies at their tiles",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=0,
        help="ahead: spread the groups over this many worker processes (0: in this process)",
    )
    parser.add_argument(
        "--importance-delay",
        type=int,
        default=None,
        help="steps before a memory's rating is applied (config; 0: rated in the step)",
    )
    args = parser.parse_args(argv)
    if args.workers and args.engine != "ahead":
        parser.error("--workers spreads the ahead engine's groups: use it with --engine ahead")
    hour, _, minute = args.start.partition(":")
    start = MIDNIGHT.replace(hour=int(hour), minute=int(minute or 0))
    owner, _ = User.objects.get_or_create(username="bench")
    latency = Latency.parse(args.latency)  # a bad spec fails here, before anything runs
    with policy_server_process(args.latency, args.slots) as server:
        simulation, elapsed, since, cpu = run(
            owner,
            server,
            args.hours,
            args.engine,
            args.base,
            args.residents,
            args.importance_delay,
            start,
            args.in_flight,
            args.town,
            args.workers,
        )
        ahead_settle(timeout=120)  # calls sent ahead for steps past the run: answered
    calls: list[dict[str, Any]] = [
        dict(row)
        for row in ModelCall.objects.filter(simulation=simulation, created_at__gte=since).values(
            "step", "agent_name", "decider", "task", "created_at", "finished_at", "priority"
        )
    ]
    # Background calls (ratings and decompositions sent ahead, reflections) wait on nobody.
    critical = [c for c in calls if c["priority"] == 0]
    chains = decision_chains(critical)
    chained, busiest = chain_bound(chains), resident_bound(chains)
    vision = max(simulation.agents.values_list("vision_radius", flat=True))
    names = list(simulation.agents.order_by("name").values_list("name", flat=True))
    tiles = tiles_by_step(simulation)
    dependent = dependency_bound(chains, names, tiles, reach=vision, steps=simulation.step)
    seen = seen_change_bound(
        chains,
        names,
        tiles,
        seen_changes(simulation),
        simulation.town,
        vision=vision,
        steps=simulation.step,
    )
    ruled = rule_bound(
        chains,
        names,
        tiles,
        reach_of(simulation.town, vision=vision),
        first=0,
        steps=simulation.step,
    )
    per_call = latency.mean
    base_size = len(base_resolve(user=owner, base=args.base).residents)
    report = {
        **stamp(),
        "agents": simulation.agents.count(),
        "town": args.town if len(names) > base_size else "base",  # how the rest were added
        "cognition": "paper",
        "importance_delay": simulation.config["importance_delay"],
        "engine": args.engine,
        "calls_in_flight_cap": args.in_flight or settings.SMALLVILLE_CALLS_IN_FLIGHT,
        "start": start.isoformat(),
        "sim_hours": args.hours,
        "steps": simulation.step,
        "status": simulation.status,
        "reason": simulation.status_reason,
        "latency": latency.spec,
        "slots": args.slots or "no limit",
        "agent_threads": settings.SMALLVILLE_AGENT_THREADS,
        "workers": args.workers or "in process",
        "wall_seconds": round(elapsed, 1),
        # The engine's processes (this one, or the workers), not the database or the
        # model server: CPU per resident and step.
        "engine_cpu_seconds": round(cpu, 1),
        "cpu_ms_per_resident_step": round(
            1000 * cpu / max(1, simulation.step * simulation.agents.count()), 3
        ),
        "log_events": Event.objects.filter(simulation=simulation).count(),
        "log_digest": log_digest(simulation),
        "model_calls": len(calls),
        "background_calls": len(calls) - len(critical),
        "critical_calls_by_task": dict(Counter(c["task"] for c in critical).most_common()),
        "sent_ahead": model_calls_ahead(simulation=simulation),
        "steps_with_calls": len({c["step"] for c in calls}),
        "calls_in_flight": in_flight(calls),
        # Per step, the longest chain of one resident's decision: what a barrier engine
        # that costs nothing waits for.
        "chain_bound_calls": chained,
        "chain_bound_seconds": round(chained * per_call, 1),
        "wall_over_chain_bound": _ratio(elapsed, chained * per_call),
        # The rule of the engine that runs residents ahead, played out on this log with
        # the engine costing nothing (bench/bounds.py).
        "rule_bound_calls": ruled,
        "rule_bound_seconds": round(ruled * per_call, 1),
        "wall_over_rule_bound": _ratio(elapsed, ruled * per_call),
        # Through residents within sight of each other (where they stood in the log): what
        # an oracle scheduler that writes the barrier's log waits for.
        "dependency_bound_calls": dependent,
        "dependency_bound_seconds": round(dependent * per_call, 1),
        "wall_over_dependency_bound": _ratio(elapsed, dependent * per_call),
        # Only on those in the same arena whose last step changed what is seen of them:
        # no engine that writes the barrier's log can wait less.
        "seen_change_bound_calls": seen,
        "seen_change_bound_seconds": round(seen * per_call, 1),
        # The busiest resident's own decisions one after another: what an engine waits
        # for if no resident ever waited on another.
        "resident_bound_calls": busiest,
        "resident_bound_seconds": round(busiest * per_call, 1),
        "wall_over_resident_bound": _ratio(elapsed, busiest * per_call),
        # Every memory and query embedded on this machine's cores (bench/embeddings.py).
        "embedding": (embedded := embedding_bound(since)),
        "wall_over_embedding_bound": _ratio(elapsed, embedded.get("embedding_bound_seconds", 0)),
    }
    print(json.dumps(report, indent=2, default=str))
