"""Celery tasks of the tick engine (thin: take ids, call one service), and the broker that
sends each unit of work of `agents.dispatch` to its task."""

from __future__ import annotations

from typing import Any

from celery import shared_task
from django.conf import settings

from . import engine
from .dispatch import AgentSteps, Reflect, Tick, TickCommit, Work
from .reflection.tasks import reflect, reflection_queue

# A commit waiting for a reflection job asks again after this many seconds.
COMMIT_RETRY_SECONDS = 0.25


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


class CeleryBroker:
    """The default broker (settings.SMALLVILLE_BROKER): each unit of work to its task."""

    def send(self, work: Work) -> None:
        match work:
            case Tick(simulation_id, step):
                tick.delay(simulation_id, step)
            case AgentSteps(simulation_id, step, names):
                agent_steps.delay(simulation_id, step, list(names))
            case TickCommit(simulation_id, step, later=False):
                tick_commit.delay(simulation_id, step)
            case TickCommit(simulation_id, step, later=True):
                tick_commit.apply_async((simulation_id, step), countdown=COMMIT_RETRY_SECONDS)
            case Reflect(job_id):
                reflect.apply_async((job_id,), queue=reflection_queue())
