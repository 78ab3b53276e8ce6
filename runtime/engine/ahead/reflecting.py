"""The reflection jobs a run of the engine that runs residents ahead waits for: a group
whose commit finds a reflection due and not done runs the job in the run's own pool, if
nobody else runs it (runtime/engine/ahead/run.py)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from django.db import close_old_connections

from agents.reflection.models import JobStatus, ReflectionJob
from runtime.reflections import reflection_job_run_inline
from world.models import Simulation

log = logging.getLogger(__name__)


class Reflections:
    def __init__(self, simulation: Simulation) -> None:
        self.simulation = simulation
        self.jobs: dict[int, Future[None]] = {}

    def due(self, pool: ThreadPoolExecutor, names: Sequence[str], step: int) -> None:
        """A commit of `names` at `step` waits for a reflection due then: run its job."""
        jobs = ReflectionJob.objects.filter(
            simulation=self.simulation,
            agent__in=list(names),
            due_step__lte=step + 1,
            status__in=[JobStatus.PENDING, JobStatus.RUNNING],
        ).values_list("pk", flat=True)
        for job_id in jobs:
            self.run(pool, job_id)

    def run(self, pool: ThreadPoolExecutor, job_id: int) -> None:
        if job_id not in self.jobs or self.jobs[job_id].done():
            self.jobs[job_id] = pool.submit(_threaded_job, job_id)

    def pending(self) -> list[Future[Any]]:
        return [f for f in self.jobs.values() if not f.done()]


def _threaded_job(job_id: int) -> None:
    try:
        reflection_job_run_inline(job_id)
    except Exception:
        log.exception("reflection job %s failed here; its commit asks again", job_id)
    finally:
        close_old_connections()
