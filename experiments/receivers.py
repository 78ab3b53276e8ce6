"""What experiments do when a run's simulation ends: advance the experiment (the runtime's
`world.signals.run_ended`, connected in ExperimentsConfig.ready)."""

from __future__ import annotations

from typing import Any

from world.signals import run_ended

from .models import ExperimentRun, RunStatus
from .tasks import experiment_advance_later


def _run_ended(sender: Any, simulation: Any, outcome: str, **_: Any) -> None:
    experiment_id = (
        ExperimentRun.objects.filter(simulation_id=simulation.pk, status=RunStatus.RUNNING)
        .values_list("experiment_id", flat=True)
        .first()
    )
    if experiment_id is not None:
        experiment_advance_later(experiment_id)


def connect() -> None:
    run_ended.connect(_run_ended, dispatch_uid="experiments.run_ended")
