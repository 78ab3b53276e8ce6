"""The Celery task of an evaluation: take the id, run the service."""

from __future__ import annotations

from celery import shared_task
from django.db import transaction

from .models import Evaluation
from .runner import evaluation_run


@shared_task(acks_late=True, reject_on_worker_lost=True, name="evaluations.run")
def evaluation_run_task(evaluation_id: int) -> None:
    evaluation_run(evaluation=Evaluation.objects.get(pk=evaluation_id))


def evaluation_enqueue(*, evaluation: Evaluation) -> None:
    """Run the evaluation on a worker once the transaction that made it commits."""
    transaction.on_commit(lambda: evaluation_run_task.delay(evaluation.pk))
