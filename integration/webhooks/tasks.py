"""Celery tasks of webhooks (thin: take an id, call one service), on a queue of their own
(`<queue>.webhooks`) so a slow receiver never holds up a tick."""

from __future__ import annotations

from celery import shared_task

from .delivery import deliveries_resend_due, delivery_attempt
from .logfeed import log_events_collect


def webhook_queue() -> str:
    """Read when a delivery is sent, so a worker on a private queue gets its own."""
    return f"{webhook_deliver.app.conf.task_default_queue}.webhooks"


@shared_task(acks_late=True, reject_on_worker_lost=True, name="integration.webhook_deliver")
def webhook_deliver(delivery_id: str) -> None:
    delivery_attempt(delivery_id=delivery_id)


@shared_task(name="integration.webhooks_sweep")
def webhooks_sweep() -> None:
    """Sent by every worker's watchdog (smallville_project/celery.py)."""
    log_events_collect()
    deliveries_resend_due()
