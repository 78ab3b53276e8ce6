"""Celery tasks of the tick engine: thin wrappers that take ids and call agents.engine."""

from __future__ import annotations

from typing import Any

from celery import shared_task
from django.conf import settings

from . import engine


def _redelivered(task: Any) -> bool:
    """The broker delivers this task again: the worker that had it died before acking."""
    return bool((task.request.delivery_info or {}).get("redelivered"))


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, name="agents.tick")
def tick(self: Any, simulation_id: int, step: int) -> None:
    engine.tick_start(simulation_id=simulation_id, step=step, redelivered=_redelivered(self))


@shared_task(acks_late=True, reject_on_worker_lost=True, name="agents.agent_steps")
def agent_steps(simulation_id: int, step: int, names: list[str]) -> None:
    engine.agent_steps(simulation_id=simulation_id, step=step, names=names)


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, name="agents.tick_commit")
def tick_commit(self: Any, simulation_id: int, step: int) -> None:
    engine.tick_commit(simulation_id=simulation_id, step=step, redelivered=_redelivered(self))


@shared_task(name="agents.runs_watch")
def runs_watch() -> None:
    """Sent by every worker's watchdog (smallville_project/celery.py)."""
    engine.runs_resume_stalled(stall_seconds=settings.SMALLVILLE_STALL_SECONDS)


engine.enqueue_register("tick", lambda sim, step: tick.delay(sim, step))
engine.enqueue_register("agent_steps", lambda sim, step, names: agent_steps.delay(sim, step, names))
engine.enqueue_register("tick_commit", lambda sim, step: tick_commit.delay(sim, step))
engine.enqueue_register(
    "tick_commit_later", lambda sim, step: tick_commit.apply_async((sim, step), countdown=0.25)
)
