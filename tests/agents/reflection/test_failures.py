"""Failed jobs: retried, never a reflection without its evidence, never a stalled run; and
the commit of the due step waits for the job."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User

from agents.events import REFLECTION_DONE
from agents.reflection import reflect
from agents.reflection.models import JobStatus, ReflectionJob
from agents.tasks.reflection_questions import QUESTIONS
from llm.errors import ModelUnavailable
from llm.port import llm_run
from memories.models import Evidence, Memory, MemoryKind
from runtime import engine, tasks
from runtime import reflections as services
from runtime.dispatch import Reflect, TickCommit, Work
from runtime.engine import barrier
from world.models import Event, SimulationStatus

from .conftest import KLAUS, reflecting
from .test_citations import observed


class Flaky:
    """llm_run that fails the calls numbered in `failing` (counted across attempts), and
    in every attempt its call number `each_attempt` (the questions call is number 1)."""

    def __init__(self, failing: set[int] | None = None, each_attempt: int | None = None) -> None:
        self.calls = self.in_attempt = 0
        self.failing = failing or set()
        self.each_attempt = each_attempt
        self.real = llm_run

    def __call__(self, **kwargs: Any) -> Any:
        self.calls += 1
        self.in_attempt = 1 if kwargs["task"] is QUESTIONS else self.in_attempt + 1
        if self.calls in self.failing or self.in_attempt == self.each_attempt:
            raise ModelUnavailable("the server is down", task=kwargs["task"].name, attempts=1)
        return self.real(**kwargs)


def _no_orphans(simulation: Any) -> None:
    """Every reflection cites something."""
    reflections = Memory.objects.filter(agent__simulation=simulation, kind=MemoryKind.REFLECTION)
    assert not reflections.exclude(pk__in=Evidence.objects.values("reflection_id")).exists(), (
        "a reflection without evidence"
    )


@pytest.mark.django_db(transaction=True)
def test_a_failed_attempt_is_retried_and_the_reflection_keeps_its_evidence(
    user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The first attempt fails at its third call (an insights call, after the questions):
    # nothing of it is kept; the second attempt fails at once; the third succeeds.
    flaky = Flaky(failing={3, 4})
    monkeypatch.setattr(reflect, "llm_run", flaky)
    simulation = engine.simulation_run_inline(simulation=observed(user), steps=3)
    job = ReflectionJob.objects.get(simulation=simulation, agent=KLAUS)
    assert job.status == JobStatus.DONE and job.attempts == 3
    done = Event.objects.get(simulation=simulation, kind=REFLECTION_DONE, agent=KLAUS)
    assert done.payload["reflections"] > 0 and not done.payload.get("failed")
    _no_orphans(simulation)


@pytest.mark.django_db(transaction=True)
def test_a_job_that_keeps_failing_logs_no_reflection_and_the_run_goes_on(
    user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every attempt gets its questions and fails at the second insights call.
    flaky = Flaky(each_attempt=3)
    monkeypatch.setattr(reflect, "llm_run", flaky)
    simulation = engine.simulation_run_inline(simulation=observed(user), steps=5)
    assert simulation.status == SimulationStatus.IDLE and simulation.step == 5
    job = ReflectionJob.objects.get(simulation=simulation, agent=KLAUS)
    assert job.status == JobStatus.FAILED and job.attempts == services.max_attempts()
    assert "the server is down" in job.error
    done = Event.objects.get(simulation=simulation, kind=REFLECTION_DONE, agent=KLAUS)
    assert done.step == 2 and done.payload["failed"] is True
    assert not Memory.objects.filter(agent__simulation=simulation, kind=MemoryKind.REFLECTION)
    assert simulation.agents.get(name=KLAUS).reflection_due_step is None

    # Later reflections work again, in a run that observes.
    monkeypatch.setattr(reflect, "llm_run", flaky.real)
    later = engine.simulation_run_inline(simulation=reflecting(user), steps=40)
    assert ReflectionJob.objects.filter(simulation=later, status=JobStatus.DONE).exists()
    _no_orphans(later)


@pytest.mark.django_db(transaction=True)
def test_the_due_commit_waits_for_the_job_and_the_task_retries(
    user: User, monkeypatch: pytest.MonkeyPatch, sent_work: list[Work]
) -> None:
    simulation = observed(user)
    engine.simulation_run(simulation=simulation, steps=3)
    engine.engine_tick(simulation_id=simulation.pk, step=0)  # commits step 1: the request
    job = ReflectionJob.objects.get(simulation=simulation, agent=KLAUS)
    assert Reflect(job.pk) in sent_work
    assert (job.requested_step, job.due_step, job.status) == (1, 2, JobStatus.PENDING)

    # Tick 1's agent steps are decided, but its commit waits for the job.
    engine.engine_tick(simulation_id=simulation.pk, step=1)
    simulation.refresh_from_db()
    assert simulation.step == 1
    assert sent_work[-1] == TickCommit(simulation.pk, 1, later=True)

    # The Celery task: two failed attempts are retried (eagerly here), the third stores it.
    flaky = Flaky(failing={1, 2})
    monkeypatch.setattr(reflect, "llm_run", flaky)
    tasks.reflect.apply((job.pk,))
    job.refresh_from_db()
    assert job.status == JobStatus.DONE and job.attempts == 3
    tasks.reflect.apply((job.pk,))  # a duplicate delivery does nothing
    job.refresh_from_db()
    assert job.attempts == 3

    barrier.tick_commit(simulation_id=simulation.pk, step=1)
    simulation.refresh_from_db()
    assert simulation.step == 2
    done = Event.objects.get(simulation=simulation, kind=REFLECTION_DONE)
    assert done.step == 2 and done.payload["reflections"] > 0
    _no_orphans(simulation)
