"""The Celery tasks of experiments (thin: take ids, call the service)."""

from __future__ import annotations

import logging

from celery import shared_task
from django.db import transaction

from .models import Experiment, ExperimentStatus
from .services import experiment_advance

log = logging.getLogger(__name__)


@shared_task(acks_late=True, reject_on_worker_lost=True, name="experiments.advance")
def experiment_advance_task(experiment_id: int) -> None:
    if Experiment.objects.filter(pk=experiment_id).exists():
        experiment_advance(experiment_id=experiment_id)


@shared_task(name="experiments.sweep")
def experiments_sweep() -> None:
    """Sent by every worker's watchdog (smallville_project/celery.py): advance each running
    experiment, so one whose advance was lost (a killed worker, a restart) goes on."""
    running = Experiment.objects.filter(status=ExperimentStatus.RUNNING).values_list(
        "pk", flat=True
    )
    for experiment_id in running:
        experiment_advance(experiment_id=experiment_id)


def experiment_advance_later(experiment_id: int) -> None:
    """Advance the experiment on a worker once the caller's transaction commits; when it
    cannot be sent (the broker away), every worker's sweep advances it."""

    def send() -> None:
        try:
            experiment_advance_task.delay(experiment_id)
        except Exception as exc:  # never fail the caller (a run's commit): the sweep advances it
            log.warning("advance of experiment %s not sent: %r", experiment_id, exc)

    transaction.on_commit(send)
