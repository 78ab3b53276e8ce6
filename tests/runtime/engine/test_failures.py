"""What a failed unit of work does to its run (runtime/engine/failures.py): a dependency
that cannot be reached propagates; anything else fails the run with a readable reason."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.db import OperationalError

from runtime.engine.decide import simulation_fail
from runtime.engine.failures import run_fails_on_error
from tests.factories import simulation_of
from world.models import Simulation, SimulationStatus


def test_a_transient_error_propagates_and_leaves_the_run(user: User) -> None:
    simulation = simulation_of(user)
    Simulation.objects.filter(pk=simulation.pk).update(status=SimulationStatus.RUNNING)
    with (
        pytest.raises(OperationalError),
        run_fails_on_error(simulation_id=simulation.pk, step=4, work="decide"),
    ):
        raise OperationalError("the database went away")
    simulation.refresh_from_db()
    assert simulation.status == SimulationStatus.RUNNING


def test_any_other_error_fails_the_run_with_its_step_and_work(user: User) -> None:
    simulation = simulation_of(user)
    Simulation.objects.filter(pk=simulation.pk).update(status=SimulationStatus.RUNNING)
    with run_fails_on_error(simulation_id=simulation.pk, step=4, work="decide"):
        raise KeyError("a missing loom")
    simulation.refresh_from_db()
    assert simulation.status == SimulationStatus.FAILED
    assert simulation.status_reason == "step 5, decide: KeyError: 'a missing loom'"


def test_a_failure_of_a_step_the_run_has_passed_is_no_longer_the_runs(user: User) -> None:
    """A worker cut off from the others past its leases reports a failure of step 5 after
    another worker decided and committed it: the run goes on (tests/chaos/test_hosts.py)."""
    simulation = simulation_of(user)
    Simulation.objects.filter(pk=simulation.pk).update(status=SimulationStatus.RUNNING, step=7)
    with run_fails_on_error(simulation_id=simulation.pk, step=4, work="agent steps"):
        raise KeyError("a model answer that never came")
    simulation_fail(
        simulation=simulation, step=5, agent="Odile Brannock", error=ValueError("timed out")
    )
    simulation.refresh_from_db()
    assert simulation.status == SimulationStatus.RUNNING and simulation.status_reason == ""
    simulation_fail(simulation=simulation, step=7, agent="Odile Brannock", error=ValueError("x"))
    simulation.refresh_from_db()
    assert simulation.status == SimulationStatus.FAILED
    assert simulation.status_reason == "step 8, Odile Brannock: ValueError: x"
