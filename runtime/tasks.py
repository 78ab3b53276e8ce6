"""Celery tasks of the runtime (thin: take ids, run one unit of work), and the broker that
sends each unit of work of `runtime.dispatch` to its task.

Task names are the wire names of messages already queued ("agents.tick", ...): they stay
as they were when these tasks lived in `agents`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from celery import shared_task
from django.conf import settings

from llm.settlement import model_calls_settle_abandoned
from runtime import reflections
from runtime.dispatch import AgentSteps, GroupDecide, Reflect, Tick, TickCommit, Work
from runtime.engine.failures import run_fails_on_error
from runtime.engine.watchdog import runs_resume_stalled
from runtime.leases import job_lease, lease_held, simulation_lease
from runtime.work import work_run

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
        run_fails_on_error(simulation_id=simulation_id, step=step, work=work),
    ):
        yield


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, name="agents.tick")
def tick(self: Any, simulation_id: int, step: int) -> None:
    with _holding(simulation_id, step, "the tick"):
        work_run(Tick(simulation_id, step), redelivered=_redelivered(self))


@shared_task(acks_late=True, reject_on_worker_lost=True, name="agents.agent_steps")
def agent_steps(simulation_id: int, step: int, names: list[str]) -> None:
    with _holding(simulation_id, step, "agent steps"):
        work_run(AgentSteps(simulation_id, step, tuple(names)))


@shared_task(acks_late=True, reject_on_worker_lost=True, name="agents.group_decide")
def group_decide(simulation_id: int, token: str, step: int, names: list[str]) -> None:
    """One group of a run spread over workers; no simulation lease (the run holds it)."""
    with run_fails_on_error(simulation_id=simulation_id, step=step, work="a group's decision"):
        work_run(GroupDecide(simulation_id, token, step, tuple(names)))


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, name="agents.tick_commit")
def tick_commit(self: Any, simulation_id: int, step: int, retrying: bool = False) -> None:
    with _holding(simulation_id, step, "the commit"):
        work_run(TickCommit(simulation_id, step, later=retrying), redelivered=_redelivered(self))


@shared_task(name="agents.runs_watch")
def runs_watch() -> None:
    """Sent by every worker's watchdog (smallville_project/celery.py)."""
    runs_resume_stalled(stall_seconds=settings.SMALLVILLE_STALL_SECONDS)
    reflections.reflection_jobs_resume_lapsed()
    model_calls_settle_abandoned()  # calls a dead worker left in flight are not billed


def reflection_queue() -> str:
    """`<default queue>.reflection`, read when a job is sent, so a worker on a private
    queue (tests, the demo) gets its reflections on `<private queue>.reflection`; workers
    consume it beside the default: `celery worker -Q smallville,smallville.reflection`."""
    return f"{reflect.app.conf.task_default_queue}.reflection"


@shared_task(
    bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=None, name="reflection.run"
)
def reflect(self: Any, job_id: int) -> None:
    """One attempt of a reflection job, on a queue of its own so ticks never wait behind
    it; a failed one is retried with backoff, the last one settles it."""
    retries = self.request.retries
    queue = (self.request.delivery_info or {}).get("routing_key") or ""
    final = retries + 1 >= reflections.max_attempts()
    with lease_held(job_lease(job_id)):
        settled = reflections.reflection_job_attempt(job_id=job_id, final=final, queue=queue)
    if not settled:
        raise self.retry(
            countdown=reflections.retry_delay(retries + 1), queue=queue or reflection_queue()
        )


class CeleryBroker:
    """The default broker (settings.SMALLVILLE_BROKER): each unit of work to its task."""

    remote = True  # its work may go to any worker (runtime.engine.ahead.spread)

    def send(self, work: Work) -> None:
        match work:
            case Tick(simulation_id, step, not_before) if not_before:
                tick.apply_async((simulation_id, step), eta=datetime.fromtimestamp(not_before, UTC))
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
            case GroupDecide(simulation_id, token, step, names):
                group_decide.delay(simulation_id, token, step, list(names))
            case Reflect(job_id):
                reflect.apply_async((job_id,), queue=reflection_queue())
