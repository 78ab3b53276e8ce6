"""A reflection through a real Celery worker: its own queue, ticks going on meanwhile, and
the same log as a run in one process."""

from __future__ import annotations

import time
from typing import Any

import pytest
from django.contrib.auth.models import User

from agents.reflection.models import JobStatus, ReflectionJob
from runtime import engine
from runtime.models import Decision
from runtime.workerproc import private_worker
from tests.model_server import ModelServer
from tests.runtime import workers
from world.models import Simulation, SimulationStatus

from .conftest import KLAUS, embedding_settings, log_of, model_settings
from .test_citations import observed


@pytest.mark.django_db(transaction=True)
def test_the_job_runs_on_its_own_queue_while_the_next_tick_is_decided(
    user: User, fake_model: ModelServer
) -> None:
    reference = engine.simulation_run_inline(simulation=observed(user), steps=4)
    simulation = observed(user)
    fake_model.delay = 1.0  # each model call: the job takes 4 s or more
    env = {
        "DATABASE_URL": workers.test_database_url(),
        **embedding_settings(fake_model),
        **model_settings(fake_model),
    }
    seen: list[tuple[str, int, int]] = []  # (job status, decisions of step 1, step)
    with private_worker(env, concurrency=2) as worker:
        engine.simulation_run(simulation=simulation, steps=4)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            simulation.refresh_from_db()
            if simulation.status != SimulationStatus.RUNNING:
                break
            job = ReflectionJob.objects.filter(simulation=simulation).first()
            decided = Decision.objects.filter(simulation=simulation, step=1).count()
            seen.append((job.status if job else "", decided, simulation.step))
            time.sleep(0.1)
        workers.wait_for(lambda: _stopped(simulation), 10, "the run to end")
    assert simulation.status == SimulationStatus.IDLE, simulation.status_reason
    job = ReflectionJob.objects.get(simulation=simulation, agent=KLAUS)
    assert job.status == JobStatus.DONE and job.attempts == 1
    assert job.queue == f"{worker.queue}.reflection"
    # While the job ran, tick 1's three agent steps were decided and stored, and its
    # commit (which logs the job's result) waited.
    assert (JobStatus.RUNNING, 3, 1) in seen, seen
    assert log_of(simulation, seq__gt=1) == log_of(reference, seq__gt=1)


def _stopped(simulation: Simulation) -> Any:
    simulation.refresh_from_db()
    return simulation.status != SimulationStatus.RUNNING
