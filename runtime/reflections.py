"""Reflection in the tick: the trigger at commit, the job's attempts, delivery when due.

Steps. `tick_commit(step=t)` appends its events at step t + 1. For a reflection
requested at step r:

- The commit that appends step r (`tick_commit(step=r - 1)`) sees an agent's importance
  since its last reflection (the stored sum plus this commit's new observations) reach
  its threshold, and appends `reflection.requested {"due_step": r + 1}`; the projection
  resets the sum and records the due step.
- After that commit a job (simulation, agent, due_step r + 1) is created and sent to the
  reflection queue. It reads the state committed at r (the 100 most recent memories,
  retrieval at the sim time of r) while the agent steps of tick r compute: they read
  the same state and write nothing but their staged decisions.
- The commit that appends step r + 1 (`tick_commit(step=r)`) waits for it (its hook
  raises NotReady until the job is done or failed) and appends the job's events: the
  reflection memories, the touch of the memories retrieval returned (at the sim time of
  r + 1), and `reflection.done` with the questions and the dropped citations.

Nothing is committed between steps r and r + 1 but by that commit, so the job reads the
state at r exactly, and a replay reads the result from the log without running it. A
job that keeps failing ends `failed`: the due commit appends `reflection.done
{"failed": true}` and no reflection, so a failure never stalls the simulation and
never leaves a reflection without its evidence.

The threshold is the agent's (the persona's `importance_trigger_max`, 150 by default)
unless the simulation's config sets `reflection_threshold`.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable
from datetime import timedelta

from django.conf import settings
from django.db.models import F
from django.utils import timezone

from agents.events import (
    REFLECTION_REQUESTED,
    importance_counted,
    reflection_done,
    reflection_failed,
    reflection_requested,
)
from agents.reflection.models import JobStatus, ReflectionJob
from agents.reflection.reflect import reflection_compute
from llm.errors import BudgetExhausted
from llm.port import calls_in_background
from memories.events import MEMORY_CREATED, MEMORY_RATED
from memories.models import MemoryKind
from runtime.commit_context import CommitContext, NotReady
from runtime.dispatch import Reflect, send_on_commit
from runtime.leases import job_lease, leases_alive
from world.eventlog import EventDraft
from world.models import Agent, Event, Simulation

log = logging.getLogger(__name__)

OPEN = (JobStatus.PENDING, JobStatus.RUNNING)
# A pending job not started this long after it was last sent is sent again (its message
# was lost): a duplicate message finds the job claimed or done and does nothing. Above the
# longest retry backoff (60 s), which also counts as a send.
RESEND_AFTER = timedelta(seconds=90)


class StateMoved(Exception):
    """The simulation is past the step the job must read: its result cannot be exact."""


def max_attempts() -> int:
    return int(getattr(settings, "SMALLVILLE_REFLECTION_MAX_ATTEMPTS", 4))


def retry_delay(retry: int) -> float:
    """Seconds before retry number `retry` (1-based) on a worker: 2, 4, 8... up to 60."""
    base = float(getattr(settings, "SMALLVILLE_REFLECTION_BACKOFF", 2.0))
    return float(min(60.0, base * 2 ** (retry - 1)))


def threshold_for(*, simulation: Simulation, agent_threshold: int) -> int:
    return max(1, int(simulation.config.get("reflection_threshold") or agent_threshold))


# --- the job ---------------------------------------------------------------------------


def reflection_job_request(*, simulation: Simulation, agent: str, due_step: int) -> ReflectionJob:
    """The job of the reflection due at `due_step`, created and sent once."""
    job, created = ReflectionJob.objects.get_or_create(
        simulation=simulation,
        agent=agent,
        due_step=due_step,
        defaults={"requested_step": due_step - 1},
    )
    if created or (job.status in OPEN and job.sent_at is None):
        _send(job)
    return job


def _send(job: ReflectionJob) -> None:
    job.sent_at = timezone.now()
    ReflectionJob.objects.filter(pk=job.pk).update(sent_at=job.sent_at)
    send_on_commit(Reflect(job.pk))


def reflection_job_attempt(*, job_id: int, final: bool, queue: str = "") -> bool:
    """Run the job once. True when it is settled (done, failed, or gone); False when the
    attempt failed and another should follow."""
    claimed = ReflectionJob.objects.filter(pk=job_id, status=JobStatus.PENDING).update(
        status=JobStatus.RUNNING,
        attempts=F("attempts") + 1,
        started_at=timezone.now(),
        queue=queue,
    )
    if not claimed:
        return True  # running, done or failed already: a duplicate delivery does nothing
    job = ReflectionJob.objects.select_related("simulation").get(pk=job_id)
    simulation = job.simulation
    try:
        # The resident stands at `requested_step` until its reflection is delivered (its
        # next commit waits for it); the log may stand behind it, under the engine that
        # lets residents run ahead of each other, but never past it.
        if simulation.step > job.requested_step:
            raise StateMoved(
                f"the simulation is at step {simulation.step}; "
                f"the job reads step {job.requested_step}"
            )
        agent = Agent.objects.get(simulation=simulation, name=job.agent)
        with calls_in_background():  # the residents' steps go on without it
            outcome = reflection_compute(
                simulation=simulation, agent=agent, read_step=job.requested_step
            )
    except (BudgetExhausted, StateMoved) as exc:
        _fail(job, exc)
        return True
    except Exception as exc:
        if final:
            _fail(job, exc)
            return True
        log.warning(
            "reflection job %s (%s) attempt %d failed: %s", job.pk, job.agent, job.attempts, exc
        )
        ReflectionJob.objects.filter(pk=job_id, status=JobStatus.RUNNING).update(
            status=JobStatus.PENDING, error=_describe(exc), sent_at=timezone.now()
        )
        return False
    ReflectionJob.objects.filter(pk=job_id, status__in=OPEN).update(
        status=JobStatus.DONE,
        questions=outcome.questions,
        result=[{"kind": e.kind, "agent": e.agent, "payload": e.payload} for e in outcome.events],
        dropped_citations=outcome.dropped,
        error="",
        finished_at=timezone.now(),
    )
    return True


def _fail(job: ReflectionJob, exc: BaseException) -> None:
    log.error("reflection job %s (%s) failed for good: %s", job.pk, job.agent, exc, exc_info=exc)
    ReflectionJob.objects.filter(pk=job.pk, status__in=OPEN).update(
        status=JobStatus.FAILED, error=_describe(exc), finished_at=timezone.now()
    )


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:2000]


def reflection_job_run_inline(job_id: int) -> None:
    """All of a job's attempts in this process, without waiting between them."""
    attempts = max_attempts()
    for attempt in range(1, attempts + 1):
        if reflection_job_attempt(job_id=job_id, final=attempt == attempts, queue="inline"):
            return


# --- the hooks into the tick commit ----------------------------------------------------


def reflection_due(context: CommitContext, drafts: list[EventDraft]) -> list[EventDraft]:
    """Append the reflections due at this commit, then request the ones now triggered.

    `importance_since_reflection` counts from the last request, so observations made
    while a reflection was in flight count towards the next one.
    """
    simulation, at = context.simulation, context.step + 1  # appended at step + 1
    agents = context.agents.values()
    due = {
        a.name: a.reflection_due_step
        for a in agents
        if a.reflection_due_step is not None and a.reflection_due_step <= at
    }
    if due:
        drafts = [*drafts, *_deliveries(simulation, due)]
    added: Counter[str] = Counter()
    for draft in drafts:
        if draft.kind in (MEMORY_CREATED, MEMORY_RATED):
            added[draft.agent] += importance_counted(draft.kind, draft.payload)
    counted = {a.name: a.importance_since_reflection + added[a.name] for a in agents}
    if "no_reflection" in simulation.config.get("ablations", []):
        return drafts  # the ablation: nobody reflects
    requests = [
        reflection_requested(agent=a.name, due_step=at + 1, importance=counted[a.name])
        for a in agents
        if (a.reflection_due_step is None or a.name in due)  # none in flight, or just delivered
        and counted[a.name]
        >= threshold_for(simulation=simulation, agent_threshold=a.reflection_threshold)
    ]
    return [*drafts, *requests]


def reflection_quiet(*, simulation: Simulation, step: int, agents: Iterable[Agent]) -> bool:
    """Whether `reflection_due` adds nothing to a commit of step `step` that has no events
    of these residents: none of them has a reflection due by then, or has counted past
    its threshold with none in flight. (The engine that runs residents ahead then skips
    the commit of a step that decided nothing.)"""
    at = step + 1
    for agent in agents:
        if agent.reflection_due_step is not None:
            if agent.reflection_due_step <= at:
                return False
            continue
        threshold = threshold_for(simulation=simulation, agent_threshold=agent.reflection_threshold)
        if agent.importance_since_reflection >= threshold and "no_reflection" not in (
            simulation.config.get("ablations", [])
        ):
            return False
    return True


def _deliveries(simulation: Simulation, due: dict[str, int]) -> list[EventDraft]:
    """The events of the jobs due; NotReady while any of them is still open."""
    jobs = {
        (job.agent, job.due_step): job
        for job in ReflectionJob.objects.filter(simulation=simulation, agent__in=list(due))
    }
    events: list[EventDraft] = []
    waiting: list[str] = []
    for name, due_step in sorted(due.items()):
        job = jobs.get((name, due_step))
        if job is None:
            # No job yet: the process died between the request's commit and its
            # after-commit hook, or this is a fork of a simulation with a job in flight.
            reflection_job_request(simulation=simulation, agent=name, due_step=due_step)
            waiting.append(name)
        elif job.status == JobStatus.DONE:
            events += [EventDraft(**event) for event in job.result]
            reflections = sum(
                1
                for e in job.result
                if e["kind"] == MEMORY_CREATED and e["payload"]["kind"] == MemoryKind.REFLECTION
            )
            done = reflection_done(
                agent=name,
                due_step=due_step,
                questions=job.questions,
                reflections=reflections,
                dropped_citations=job.dropped_citations,
            )
            events.append(done)
        elif job.status == JobStatus.FAILED:
            log.error("reflection of %s due at step %d failed: %s", name, due_step, job.error)
            events.append(reflection_failed(agent=name, due_step=due_step, error=job.error))
        else:
            if job.status == JobStatus.PENDING and (
                job.sent_at is None or timezone.now() - job.sent_at > RESEND_AFTER
            ):
                _send(job)
            waiting.append(name)
    if waiting:
        raise NotReady(f"reflections of {', '.join(waiting)} are not done")
    return events


def reflection_after_commit(simulation: Simulation, step: int, events: list[Event]) -> None:
    """Create and send the jobs this commit requested. Never raises: the due commit
    creates a job that is missing, and the next tick must still be sent."""
    for event in events:
        if event.kind != REFLECTION_REQUESTED:
            continue
        try:
            reflection_job_request(
                simulation=simulation, agent=event.agent, due_step=event.payload["due_step"]
            )
        except Exception:
            log.exception("could not send the reflection job of %s", event.agent)


def reflection_jobs_resume_lapsed() -> list[int]:
    """The watchdog's part for reflection: a running job whose worker's lease lapsed (the
    worker died) goes back to pending and is sent again; a pending job whose message was
    lost is sent again. Returns the ids of the jobs sent."""
    lapse = timedelta(seconds=float(settings.SMALLVILLE_LEASE_SECONDS))
    now = timezone.now()
    running = list(
        ReflectionJob.objects.filter(status=JobStatus.RUNNING, started_at__lt=now - lapse)
    )
    held = leases_alive([job_lease(job.pk) for job in running])
    resumed = [job for job in running if job_lease(job.pk) not in held]
    sent = []
    for job in resumed:
        back = ReflectionJob.objects.filter(pk=job.pk, status=JobStatus.RUNNING).update(
            status=JobStatus.PENDING, error="its worker stopped answering"
        )
        if back:
            log.warning("reflection job %s (%s): its worker is gone; sent again", job.pk, job.agent)
            _send(job)
            sent.append(job.pk)
    lost = ReflectionJob.objects.filter(
        status=JobStatus.PENDING, sent_at__lt=now - RESEND_AFTER
    ).exclude(pk__in=sent)
    for job in lost:
        _send(job)
        sent.append(job.pk)
    return sent
