"""Celery tasks of the tick engine (thin: take ids, call one service), and the broker that
sends each unit of work of `agents.dispatch` to its task."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from celery import shared_task
from django.conf import settings

from llm.services import model_calls_settle_abandoned

from . import engine
from .dispatch import AgentSteps, Reflect, Tick, TickCommit, Work
from .leases import lease_held, simulation_lease
from .reflection.services import reflection_jobs_resume_lapsed
from .reflection.tasks import reflect, reflection_queue

# A commit waiting for a reflection job asks again after this many seconds.
COMMIT_RETRY_SECONDS = 0.25


def _redelivered(task: Any) -> bool:
    """The broker delivers this task again: the worker that had it died before acking."""
    return bool((task.request.delivery_info or {}).get("redelivered"))


@contextmanager
def _holding(simulation_id: int, step: int, work: str) -> Iterator[None]:
    """The worker's lease on the simulation while it works; a failure no retry can fix
    fails the run with its reason."""
    with (
        lease_held(simulation_lease(simulation_id)),
        engine.run_fails_on_error(simulation_id=simulation_id, step=step, work=work),
    ):
        yield


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, name="agents.tick")
def tick(self: Any, simulation_id: int, step: int) -> None:
    with _holding(simulation_id, step, "the tick"):
        engine.tick_start(simulation_id=simulation_id, step=step, redelivered=_redelivered(self))


@shared_task(acks_late=True, reject_on_worker_lost=True, name="agents.agent_steps")
def agent_steps(simulation_id: int, step: int, names: list[str]) -> None:
    with _holding(simulation_id, step, "agent steps"):
        engine.agent_steps(simulation_id=simulation_id, step=step, names=names)


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, name="agents.tick_commit")
def tick_commit(self: Any, simulation_id: int, step: int, retrying: bool = False) -> None:
    with _holding(simulation_id, step, "the commit"):
        engine.tick_commit(
            simulation_id=simulation_id,
            step=step,
            redelivered=_redelivered(self),
            retrying=retrying,
        )


@shared_task(name="agents.runs_watch")
def runs_watch() -> None:
    """Sent by every worker's watchdog (smallville_project/celery.py)."""
    engine.runs_resume_stalled(stall_seconds=settings.SMALLVILLE_STALL_SECONDS)
    reflection_jobs_resume_lapsed()
    model_calls_settle_abandoned()  # calls a dead worker left in flight are not billed


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
                tick_commit.apply_async(
                    (simulation_id, step), {"retrying": True}, countdown=COMMIT_RETRY_SECONDS
                )
            case Reflect(job_id):
                reflect.apply_async((job_id,), queue=reflection_queue())
