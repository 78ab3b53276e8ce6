"""What a failed unit of work does to its run: wait for a dependency, or fail the run.

A database, cache or broker that cannot be reached is transient: the error propagates,
and once the dependency is back the watchdog sends the work again. Anything else (a bad
config, a sim time past the calendar, a bug) would fail again on every retry: the run
becomes `failed` with a reason a user can read, and `resume` tries the step again.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

import kombu.exceptions
import redis.exceptions
from django.db import InterfaceError, OperationalError

from world.models import Simulation, SimulationStatus
from world.services import simulation_set_status

log = logging.getLogger(__name__)

TRANSIENT = (
    OperationalError,
    InterfaceError,
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
    kombu.exceptions.OperationalError,
)


@contextmanager
def run_fails_on_error(*, simulation_id: int, step: int, work: str) -> Iterator[None]:
    try:
        yield
    except TRANSIENT:
        raise
    except Exception as exc:
        log.exception("simulation %s: %s of step %s failed", simulation_id, work, step)
        reason = f"step {step + 1}, {work}: {type(exc).__name__}: {exc}"[:2000]
        simulation = Simulation.objects.filter(pk=simulation_id).first()
        if simulation is not None:
            simulation_set_status(
                simulation=simulation,
                status=SimulationStatus.FAILED,
                reason=reason,
                expected=[SimulationStatus.RUNNING],
                step_at_most=step,
            )
