"""What a span of a simulation will cost before it runs: calls, tokens, money and wall time.

The rates come from the ledger of earlier runs of the same base (the owner's simulations
of that base with the same cognition, the simulation itself included), per resident and
per hour since the run's start (so the start's planning and the day's rhythm line up
when runs start at the same time), by task. Each earlier run gives its own estimate of
the span; the expected value is their mean and the range their lowest and highest. A
span no earlier run reached takes that run's mean rate (`extrapolated_hours`). With no
earlier run, `DEFAULT_RATES` (measured, below) answers, with a stated range of half to
twice. Money is the tokens at the prices of the profiles the simulation routes each task
to; wall time comes from earlier runs on the same models only (else it is not known):
the time between their steps' commits in the log (the engine's own time and the calls'
alike), a gap longer than `IDLE` counted as a run stopped and started again, not work.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db.models import Q

from world.events import SIMULATION_STEPPED
from world.models import Agent, Event, Simulation

from .backends import OFFLINE_MODEL
from .models import ModelCall, ModelProfile
from .profiles import call_cost, profile_route
from .settlement import ABANDONED

MAX_RUNS = 5  # the most recent earlier runs read
IDLE = 900.0  # seconds between two steps' commits past which the run was idle (paused)
# With no earlier run: calls per resident per sim hour by task, from the n25 sim day of
# `bench cognition` (docs/benchmarks.md, 2026-11-21), and each call's prompt and
# completion tokens, from the first n25 hours of `bench estimate` (2026-11-27, offline;
# the reflection tasks, which the hour did not make, at a middling call's size).
_CALLS = {
    "importance_many": 3.09,
    "decompose": 0.8,
    "react": 0.52,
    "converse_line": 0.49,
    "reflection_insights": 0.14,
    "conversation_summary": 0.1,
    "day_plan": 0.04,
    "reflection_questions": 0.04,
    "hourly_schedule": 0.04,
    "summary": 0.04,
}
_SIZES = {
    "importance_many": (488, 21),
    "decompose": (366, 358),
    "react": (270, 20),
    "converse_line": (453, 34),
    "reflection_insights": (450, 100),
    "conversation_summary": (197, 111),
    "day_plan": (487, 292),
    "reflection_questions": (450, 100),
    "hourly_schedule": (491, 1042),
    "summary": (323, 109),
}
# Per resident per sim hour, by task: (calls, prompt tokens, completion tokens).
DEFAULT_RATES: dict[str, tuple[float, float, float]] = {
    task: (calls, calls * _SIZES[task][0], calls * _SIZES[task][1])
    for task, calls in _CALLS.items()
}
DEFAULT_RANGE = (0.5, 2.0)  # the default table's stated uncertainty: half to twice


@dataclass
class _Run:
    """One earlier run's ledger: sums per hour since its start and task, and wall spans."""

    simulation: Simulation
    residents: int
    covered: tuple[float, float]  # hours since its start that its steps span
    sums: dict[int, dict[str, list[int]]] = field(default_factory=dict)
    spans: dict[int, list[datetime]] = field(default_factory=dict)
    walls: dict[int, float] = field(default_factory=dict)  # seconds between step commits
    first_calls: dict[int, datetime] = field(default_factory=dict)  # by step: its first call
    models: set[tuple[str, str]] = field(default_factory=set)


def _covered(simulation: Simulation) -> tuple[float, float]:
    hour = 3600 / simulation.sec_per_step
    return (simulation.forked_at_step or 0) / hour, simulation.step / hour


def _overlap(a: tuple[float, float], b: tuple[float, float]) -> float:
    return max(0.0, min(a[1], b[1]) - max(a[0], b[0]))


def _earlier_runs(simulation: Simulation) -> list[_Run]:
    cognition = (simulation.config or {}).get("cognition")
    candidates = Simulation.objects.filter(owner_id=simulation.owner_id, base=simulation.base)
    runs: dict[int, _Run] = {}
    for candidate in candidates.order_by("-id")[:50]:
        covered = _covered(candidate)
        if (candidate.config or {}).get("cognition") == cognition and covered[1] > covered[0]:
            runs[candidate.pk] = _Run(candidate, 0, covered)
        if len(runs) == MAX_RUNS:
            break
    agents = Agent.objects.filter(simulation_id__in=runs)
    for owner in agents.values_list("simulation_id", flat=True):
        runs[owner].residents += 1
    rows = (
        ModelCall.objects.filter(
            simulation_id__in=runs, sim_time__isnull=False, finished_at__isnull=False
        )
        # A run's calls: its residents' steps' and its background work's, not a user's
        # questions nor the ratings of the seed memories when it was made.
        .filter(Q(priority=1) | ~Q(decider=""))
        .exclude(error=ABANDONED)
        .values_list(
            "simulation_id",
            "task",
            "sim_time",
            "prompt_tokens",
            "completion_tokens",
            "created_at",
            "finished_at",
            "backend",
            "model",
            "step",
        )
    )
    for pk, task, sim_time, prompt, completion, created, finished, backend, model, step in rows:
        run = runs[pk]
        if sim_time is None or finished is None:  # excluded by the query
            continue
        bucket = math.floor((sim_time - run.simulation.start_time).total_seconds() / 3600)
        sums = run.sums.setdefault(bucket, defaultdict(lambda: [0, 0, 0]))[task]
        sums[0], sums[1], sums[2] = sums[0] + 1, sums[1] + prompt, sums[2] + completion
        span = run.spans.setdefault(bucket, [created, finished])
        span[0], span[1] = min(span[0], created), max(span[1], finished)
        if step is not None:
            first = run.first_calls.setdefault(step, created)
            run.first_calls[step] = min(first, created)
        run.models.add((backend, model))
    _step_walls(runs)
    return [run for run in runs.values() if run.sums and run.residents]


def _step_walls(runs: dict[int, _Run]) -> None:
    """Each run's wall seconds per hour since its start, from its steps' commits: what the
    calls' own spans leave out (perception, retrieval, commits, the waits between calls).
    A step with no commit before it (the run's first, or the first after a pause) counts
    from its first call: the morning's planning is the slowest step of all."""
    stepped = (
        Event.objects.filter(simulation_id__in=runs, kind=SIMULATION_STEPPED)
        .order_by("simulation_id", "seq")
        .values_list("simulation_id", "step", "created_at")
    )
    last: tuple[int, datetime] | None = None
    for pk, step, committed in stepped.iterator(chunk_size=5000):
        run = runs[pk]
        if step <= (run.simulation.forked_at_step or 0):
            continue  # a fork's copy of its parent's log: committed when copied
        began = last[1] if last is not None and last[0] == pk else None
        if began is None or (committed - began).total_seconds() > IDLE:
            began = run.first_calls.get(step)  # else: it made no call, and took no time
        gap = (committed - began).total_seconds() if began is not None else -1.0
        if 0 <= gap <= IDLE:
            bucket = math.floor(step * run.simulation.sec_per_step / 3600)
            run.walls[bucket] = run.walls.get(bucket, 0.0) + gap
        last = (pk, committed)


def _run_estimate(
    run: _Run, window: tuple[float, float], residents: int
) -> tuple[dict[str, list[float]], float, float]:
    """The span's (calls, prompt, completion) by task at `run`'s rates for `residents`,
    its wall seconds, and the hours of it past what the run covered."""
    out: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    wall = extrapolated = 0.0
    scale = residents / run.residents
    length = run.covered[1] - run.covered[0]
    for bucket in range(math.floor(window[0]), math.ceil(window[1])):
        hours = _overlap(window, (bucket, bucket + 1))
        seen = _overlap(run.covered, (bucket, bucket + 1))
        if seen > 0:
            sums, share = run.sums.get(bucket, {}), hours / seen
            wall += _wall(run, bucket) * share * scale
        else:  # past what the run reached: its mean rate
            extrapolated += hours
            sums = _totals(run)
            share = hours / length
            wall += sum(_wall(run, b) for b in run.spans.keys() | run.walls.keys()) * share * scale
        for task, (calls, prompt, completion) in sums.items():
            row = out[task]
            row[0] += calls * share * scale
            row[1] += prompt * share * scale
            row[2] += completion * share * scale
    return out, wall, extrapolated


def _wall(run: _Run, bucket: int) -> float:
    """The run's wall seconds in an hour: its steps' commits where the log has them, else
    the span of its calls (a lower bound)."""
    if run.walls:
        return run.walls.get(bucket, 0.0)
    span = run.spans.get(bucket)
    return (span[1] - span[0]).total_seconds() if span else 0.0


def _totals(run: _Run) -> dict[str, list[int]]:
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for by_task in run.sums.values():
        for task, sums in by_task.items():
            totals[task] = [a + b for a, b in zip(totals[task], sums, strict=True)]
    return totals


def _profiles(simulation: Simulation, tasks: set[str]) -> dict[str, ModelProfile | None]:
    return {task: profile_route(simulation_id=simulation.pk, task=task) for task in tasks}


def _model(profile: ModelProfile | None) -> tuple[str, str]:
    """The (backend, model) the ledger will name for calls on `profile`."""
    backend = profile.backend if profile else settings.SMALLVILLE_LLM_BACKEND
    if backend == "offline":
        return backend, OFFLINE_MODEL
    return backend, profile.model if profile else settings.SMALLVILLE_LLM_MODEL


def _cost(by_task: dict[str, list[float]], profiles: dict[str, ModelProfile | None]) -> Decimal:
    return sum(
        (
            call_cost(profiles[t], prompt_tokens=round(p), completion_tokens=round(c))
            for t, (_, p, c) in by_task.items()
        ),
        Decimal(0),
    )


def _range(values: list[float]) -> dict[str, float]:
    return {"expected": sum(values) / len(values), "low": min(values), "high": max(values)}


def simulation_estimate(*, simulation: Simulation, hours: float) -> dict[str, Any]:
    """The expected calls, tokens, money and wall time of the simulation's next `hours` sim
    hours on its profiles, each with a low and a high, and what they rest on."""
    residents = simulation.agents.count()
    start = _covered(simulation)[1]
    window = (start, start + hours)
    runs = _earlier_runs(simulation)
    estimates: list[tuple[dict[str, list[float]], float, float]] = []
    if runs:
        estimates = [_run_estimate(run, window, residents) for run in runs]
        per_run = [e[0] for e in estimates]
        basis = "ledger"
    else:
        per_run = [
            {
                t: [rate * residents * hours * factor for rate in rates]
                for t, rates in DEFAULT_RATES.items()
            }
            for factor in (1.0, *DEFAULT_RANGE)
        ]
        basis = "default"
    tasks = {task for by_task in per_run for task in by_task}
    profiles = _profiles(simulation, tasks)
    costs = [_cost(by_task, profiles) for by_task in per_run]
    calls = [sum(row[0] for row in by_task.values()) for by_task in per_run]
    tokens = [sum(row[1] + row[2] for row in by_task.values()) for by_task in per_run]
    expected = {
        t: [sum(b[t][i] for b in per_run if t in b) / len(per_run) for i in range(3)]
        for t in sorted(tasks)
    }
    spread = _range
    if basis == "default":  # the first entry is the table itself, the others its range
        expected, spread = dict(per_run[0]), _default
    targets = {_model(profile) for profile in profiles.values()}
    walls = [e[1] for run, e in zip(runs, estimates, strict=True) if run.models <= targets]
    return {
        "simulation": simulation.pk,
        "hours": hours,
        "residents": residents,
        "from_step": simulation.step,
        "basis": basis,
        "runs": [run.simulation.pk for run in runs],
        "extrapolated_hours": round(max((e[2] for e in estimates), default=0.0), 3),
        "calls": _rounded(spread(calls)),
        "tokens": _rounded(spread(tokens)),
        "cost": {
            key: Decimal(value).quantize(Decimal("0.0001"))
            for key, value in spread([float(c) for c in costs]).items()
        },
        "wall_seconds": _rounded(_range(walls)) if walls else None,
        "by_task": [
            {
                "task": task,
                "profile": getattr(profiles[task], "pk", None),
                "calls": round(row[0], 1),
                "prompt_tokens": round(row[1]),
                "completion_tokens": round(row[2]),
                "cost": call_cost(
                    profiles[task], prompt_tokens=round(row[1]), completion_tokens=round(row[2])
                ).quantize(Decimal("0.0001")),
            }
            for task, row in sorted(expected.items())
        ],
    }


def _default(values: list[float]) -> dict[str, float]:
    return {"expected": values[0], "low": values[1], "high": values[2]}


def _rounded(values: dict[str, float]) -> dict[str, float]:
    return {key: round(value, 1) for key, value in values.items()}
