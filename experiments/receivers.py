"""What experiments do when a run's simulation ends: advance the experiment (the runtime's
`world.signals.run_ended`, connected in ExperimentsConfig.ready)."""

from __future__ import annotations

import logging
from typing import Any

from django.db import transaction

from world.signals import run_ended

from .models import ExperimentRun, RunStatus

log = logging.getLogger(__name__)


def _run_ended(sender: Any, simulation: Any, outcome: str, **_: Any) -> None:
    experiment_id = (
        ExperimentRun.objects.filter(simulation_id=simulation.pk, status=RunStatus.RUNNING)
        .values_list("experiment_id", flat=True)
        .first()
    )
    if experiment_id is None:
        return
    from .tasks import experiment_advance_task

    def send() -> None:
        try:
            experiment_advance_task.delay(experiment_id)
        except Exception as exc:  # the sweep advances it; a run's end must not fail for this
            log.warning("advance of experiment %s not sent: %r", experiment_id, exc)

    transaction.on_commit(send)


def connect() -> None:
    run_ended.connect(_run_ended, dispatch_uid="experiments.run_ended")
