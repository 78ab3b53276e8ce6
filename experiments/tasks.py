"""The Celery tasks of experiments (thin: take ids, call the service)."""

from __future__ import annotations

from celery import shared_task

from .models import Experiment, ExperimentStatus
from .services import experiment_advance


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
