"""The Celery task of reflection jobs, on a queue of its own so ticks never wait behind it.

The queue is `<default queue>.reflection` (settings.SMALLVILLE_REFLECTION_QUEUE for the
configured default), read when a job is sent, so a worker on a private queue (tests, the
demo) gets its reflections on `<private queue>.reflection`. Workers must consume it:
`celery worker -Q smallville,smallville.reflection`.
"""

from __future__ import annotations

from typing import Any

from celery import shared_task

from ..leases import job_lease, lease_held
from . import services


def reflection_queue() -> str:
    return f"{reflect.app.conf.task_default_queue}.reflection"


@shared_task(
    bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=None, name="reflection.run"
)
def reflect(self: Any, job_id: int) -> None:
    """One attempt of the job; a failed one is retried with backoff, the last one settles it."""
    retries = self.request.retries
    queue = (self.request.delivery_info or {}).get("routing_key") or ""
    final = retries + 1 >= services.max_attempts()
    with lease_held(job_lease(job_id)):
        settled = services.reflection_job_attempt(job_id=job_id, final=final, queue=queue)
    if not settled:
        raise self.retry(
            countdown=services.retry_delay(retries + 1), queue=queue or reflection_queue()
        )
