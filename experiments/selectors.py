"""Reads on experiments: the user's, and where one stands (runs, steps per second, time left)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.utils import timezone

from .models import Experiment, ExperimentRun, RunStatus


def experiments_owned(*, user: User) -> QuerySet[Experiment]:
    return Experiment.objects.filter(owner=user)


@dataclass(frozen=True)
class ExperimentProgress:
    runs: int
    by_status: dict[str, int]
    steps_done: int
    steps_total: int
    steps_per_second: float | None
    seconds_left: float | None


def experiment_progress(*, experiment: Experiment) -> ExperimentProgress:
    """Runs by status, and steps run of all runs' steps: a run not made yet counts its
    span as the made ones' (the same span for all); the rate is over the experiment's
    wall time so far."""
    runs = list(experiment.runs.select_related("simulation"))
    by_status: dict[str, int] = {s.value: 0 for s in RunStatus}
    done = 0
    spans: list[int] = []
    start = experiment.definition["start"].get("step") or 0
    for run in runs:
        by_status[run.status] += 1
        span, ran = _steps(run, start)
        if span is not None:
            spans.append(span)
        done += ran
    per_run = max(spans) if spans else int(experiment.definition.get("span_steps", 0))
    total = sum(spans) + per_run * (len(runs) - len(spans))
    rate = None
    if experiment.started_at is not None and done:
        end = experiment.finished_at or timezone.now()
        elapsed = (end - experiment.started_at).total_seconds()
        rate = done / elapsed if elapsed > 0 else None
    live = experiment.status in ("running", "pending")
    left = (total - done) / rate if rate and live and total else None
    return ExperimentProgress(len(runs), by_status, done, total, rate, left)


def _steps(run: ExperimentRun, start: int) -> tuple[int | None, int]:
    """The run's span in steps (None before it is made) and the steps it ran."""
    if run.target_step is None or run.simulation is None:
        return None, 0
    span = run.target_step - start
    return span, max(0, min(run.simulation.step, run.target_step) - start)


def experiment_runs(*, experiment: Experiment) -> list[dict[str, Any]]:
    names = [v["name"] for v in experiment.definition["variants"]]
    return [
        {
            "id": run.pk,
            "variant": names[run.variant],
            "seed": run.seed,
            "status": run.status,
            "reason": run.reason,
            "simulation": run.simulation_id,
            "step": run.simulation.step if run.simulation else None,
            "target_step": run.target_step,
        }
        for run in experiment.runs.select_related("simulation")
    ]
