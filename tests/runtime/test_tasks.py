"""The tick engine through a real Celery worker on the real Redis broker."""

from __future__ import annotations

import threading
import time

import pytest
from django.contrib.auth.models import User
from django.db import connection

from agents.services import simulation_create_from_base
from runtime import engine, tasks
from runtime.dispatch import RecordingBroker, broker_used
from tests.factories import N3
from tests.runtime.engine.test_barrier import log_of
from tests.runtime.workers import celery_worker, wait_for
from world.models import Simulation, SimulationStatus


def _new(user: User, seed: int = 11) -> Simulation:
    return simulation_create_from_base(
        owner=user, base=N3, seed=seed, config={"cognition": "minimal"}
    )


def _reload(simulation: Simulation) -> Simulation:
    simulation.refresh_from_db()
    return simulation


@pytest.mark.django_db(transaction=True)
def test_agent_step_delivered_twice_is_applied_once(user: User) -> None:
    reference = engine.simulation_run_inline(simulation=_new(user), steps=1)
    simulation = _new(user)
    with celery_worker(SMALLVILLE_SHARD_SIZE="1"):
        # Claim the run without its first tick, then deliver one agent-step task twice.
        with broker_used(RecordingBroker()):
            engine.simulation_run(simulation=simulation, steps=1)
        names = ["Isabella Rodriguez", "Klaus Mueller", "Maria Lopez"]
        for _ in range(2):
            tasks.agent_steps.delay(simulation.pk, 0, names)
        wait_for(lambda: _reload(simulation).status == SimulationStatus.IDLE, 60, "the commit")
    assert simulation.step == 1
    assert log_of(simulation, seq__gt=1) == log_of(reference, seq__gt=1)


@pytest.mark.django_db(transaction=True)
def test_sigkill_mid_tick_then_new_worker_completes_the_same_log(user: User) -> None:
    steps = 150
    reference = engine.simulation_run_inline(simulation=_new(user), steps=steps)
    simulation = _new(user)
    with celery_worker(SMALLVILLE_SHARD_SIZE="1") as worker:
        engine.simulation_run(simulation=simulation, steps=steps)
        wait_for(lambda: _reload(simulation).step >= 20, 120, "20 committed steps")
        worker.kill()
        killed_at = _reload(simulation).step
        assert simulation.status == SimulationStatus.RUNNING and killed_at < steps
        worker.start()
        wait_for(lambda: _reload(simulation).status != SimulationStatus.RUNNING, 300, "the run")
    assert simulation.status == SimulationStatus.IDLE, simulation.status_reason
    assert simulation.step == steps
    assert log_of(simulation, seq__gt=1) == log_of(reference, seq__gt=1)


@pytest.mark.django_db(transaction=True)
def test_ten_concurrent_run_requests_run_one_chain_of_ticks(user: User) -> None:
    simulation = _new(user)
    outcomes: list[str] = []

    def request() -> None:
        try:
            engine.simulation_run(simulation=Simulation.objects.get(pk=simulation.pk), steps=25)
            outcomes.append("started")
        except engine.RunRefused:
            outcomes.append("refused")
        finally:
            connection.close()  # this thread's own: persistent ones would outlive the test database

    with celery_worker(SMALLVILLE_SHARD_SIZE="1"):
        threads = [threading.Thread(target=request) for _ in range(10)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        wait_for(lambda: _reload(simulation).status != SimulationStatus.RUNNING, 120, "the run")
        time.sleep(2)  # a stray second chain would show up as more steps by now
    assert sorted(outcomes) == ["refused"] * 9 + ["started"]
    assert _reload(simulation).step == 25
    steps_in_log_order = [row[1] for row in log_of(simulation)]
    assert steps_in_log_order == sorted(steps_in_log_order), "two ticks interleaved"
    stepped = [row[5]["step"] for row in log_of(simulation, kind="simulation.stepped")]
    assert stepped == list(range(1, 26))


@pytest.mark.django_db(transaction=True)
def test_a_run_whose_tick_was_lost_is_resumed_by_the_workers_watchdog(user: User) -> None:
    """The run is claimed but its tick never reaches a worker (the Redis transport can lose
    a message a worker was killed while fetching): the worker's watchdog finds the run
    stalled and sends the tick again, and the run completes with the same log."""
    reference = engine.simulation_run_inline(simulation=_new(user), steps=5)
    simulation = _new(user)
    stall = {"SMALLVILLE_STALL_SECONDS": "2", "SMALLVILLE_WATCHDOG_SECONDS": "0.5"}
    with celery_worker(SMALLVILLE_SHARD_SIZE="1", **stall):
        with broker_used(RecordingBroker()):
            engine.simulation_run(simulation=simulation, steps=5)  # the tick is lost
        assert _reload(simulation).step == 0
        wait_for(lambda: _reload(simulation).status == SimulationStatus.IDLE, 60, "the run")
    assert simulation.step == 5
    assert log_of(simulation, seq__gt=1) == log_of(reference, seq__gt=1)
