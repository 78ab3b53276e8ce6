"""A run at a pace (runtime/pace.py): no step is decided before its time on either
engine, through a real Celery worker too, whatever ticks come early; the log is the one
of the same run at full speed; the API takes a pace, refuses a bad one, keeps it."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from rest_framework.test import APIClient

from runtime import engine
from runtime.controls import agent_take_control
from runtime.dispatch import RecordingBroker, Tick, broker_used, send
from runtime.engine.choice import engine_tick
from runtime.engine.run import simulation_run
from runtime.engine.watchdog import runs_resume_stalled
from runtime.pace import (
    ALONE_REASON,
    PACE_MIN,
    RESEND_SECONDS,
    pace_of,
    pace_pause_if_alone,
    pace_wait,
)
from tests.api import error_of
from tests.factories import three_residents
from tests.runtime.workers import celery_worker, wait_for
from world.models import Agent, Event, PaceAlone, Simulation, SimulationStatus

from .engine.ahead.test_run import log_of

STEPS = 8
PACE = 40.0  # sim seconds a wall second: a 10 s step every 0.25 s


def started_at(simulation: Simulation) -> dict[int, datetime]:
    """Each step's first event's wall time."""
    first: dict[int, datetime] = {}
    for step, at in Event.objects.filter(simulation=simulation).values_list("step", "created_at"):
        first[step] = min(at, first.get(step, at))
    return first


def assert_kept_pace(simulation: Simulation, steps: int = STEPS) -> None:
    """No step's events before the time the pace gives its tick (the tick at s - 1)."""
    simulation.refresh_from_db()
    assert simulation.status == SimulationStatus.IDLE, simulation.status_reason
    assert simulation.run_started_step is not None and simulation.pace_from_at is not None
    interval = simulation.sec_per_step / PACE
    started = started_at(simulation)
    late = [s for s in started if s > simulation.run_started_step + 1]
    assert len(late) >= steps - 2, late  # residents act at nearly every step
    pace = pace_of(simulation)
    for step in late:
        due = pace.due_at(step - 1)
        assert due is not None and started[step] >= due, (step, started[step], due)
    # the whole run spans the pace's time at least
    last = max(started.values())
    assert (last - simulation.pace_from_at).total_seconds() >= (max(late) - 2) * interval


def paced(simulation: Simulation, **fields: Any) -> Simulation:
    Simulation.objects.filter(pk=simulation.pk).update(**fields)
    simulation.refresh_from_db()
    return simulation


def test_the_schedule_counts_from_where_the_run_started(user: User) -> None:
    start = datetime(2030, 5, 1, 9, tzinfo=UTC)
    # 10 s steps at 20 sim s a second: one every 0.5 s
    pace = pace_of(paced(three_residents(user, seed=1), pace=20.0, **schedule(100, start)))
    assert pace.wait(100, now=start) == 0
    assert pace.wait(101, now=start) == 0.5
    assert pace.wait(104, now=start + timedelta(seconds=1)) == 1.0
    assert pace.wait(103, now=start + timedelta(seconds=5)) == 0  # behind: at once
    assert pace.limit(now=start) == 101
    assert pace.limit(now=start + timedelta(seconds=1.2)) == 103
    unpaced = pace_of(paced(three_residents(user, seed=2), pace=None, **schedule(100, start)))
    assert unpaced.wait(104, now=start) == 0 and unpaced.limit() is None


def schedule(step: int, at: datetime) -> dict[str, Any]:
    return {"pace_from_step": step, "pace_from_at": at, "run_started_step": step}


@pytest.mark.parametrize("alone", [PaceAlone.FAST, PaceAlone.PAUSE])
def test_alone_the_run_goes_fast_or_pauses_and_with_someone_in_it_keeps_its_pace(
    user: User, alone: str
) -> None:
    simulation = paced(
        three_residents(user, seed=8),
        pace=5.0,
        pace_alone=alone,
        status=SimulationStatus.RUNNING,
        **schedule(0, timezone.now()),
    )
    assert pace_of(simulation).interval is None  # nobody is in the town
    assert pace_wait(simulation, 3) == 0
    resident = Agent.objects.filter(simulation=simulation).first()
    assert resident is not None
    resident = agent_take_control(simulation=simulation, agent=resident)
    assert pace_of(simulation).interval == 2.0  # 10 s steps at 5 sim s a second
    assert pace_pause_if_alone(simulation) is False
    agent_take_control(simulation=simulation, agent=resident, user_controlled=False)
    assert pace_pause_if_alone(simulation) is (alone == PaceAlone.PAUSE)
    simulation.refresh_from_db()
    assert simulation.status == (
        SimulationStatus.PAUSED if alone == PaceAlone.PAUSE else SimulationStatus.RUNNING
    )


def test_a_run_ahead_of_its_schedule_starts_it_again_where_it_stands(user: User) -> None:
    """It ran fast while nobody was there (step 60 where its schedule says 3): someone
    comes back and its next step comes at once, the one after a step's time later."""
    start = timezone.now() - timedelta(seconds=1)
    simulation = paced(three_residents(user, seed=9), pace=5.0, step=60, **schedule(0, start))
    assert pace_wait(simulation, 60) == 0
    simulation.refresh_from_db()
    assert simulation.pace_from_step == 60 and simulation.pace_from_at is not None
    assert simulation.pace_from_at > start
    assert 1.9 < pace_wait(simulation, 61) <= 2.0


@pytest.mark.django_db(transaction=True)
def test_a_run_that_pauses_when_nobody_is_in_the_town_starts_paused(
    user: User, settings: Any
) -> None:
    simulation = engine.simulation_run_inline(
        simulation=three_residents(user, seed=10), steps=5, pace=10.0, pace_alone="pause"
    )
    assert simulation.status == SimulationStatus.PAUSED
    assert simulation.status_reason == ALONE_REASON and simulation.step == 0


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("engine_name", ["barrier", "ahead"])
def test_a_paced_run_decides_no_step_before_its_time_and_logs_as_at_full_speed(
    user: User, settings: Any, engine_name: str
) -> None:
    settings.SMALLVILLE_ENGINE = engine_name
    fast = engine.simulation_run_inline(simulation=three_residents(user, seed=3), steps=STEPS)
    paced = engine.simulation_run_inline(
        simulation=three_residents(user, seed=3), steps=STEPS, pace=PACE
    )
    assert paced.pace == PACE
    assert_kept_pace(paced)
    assert [row[1:] for row in log_of(paced)] == [row[1:] for row in log_of(fast)]
    # a later run keeps the pace; a run may end it
    assert engine.simulation_run_inline(simulation=paced, steps=1).pace == PACE
    paced = engine.simulation_run_inline(simulation=paced, steps=1, pace=None)
    assert paced.pace is None


@pytest.mark.django_db(transaction=True)
def test_a_worker_keeps_the_pace_though_ticks_come_early(user: User, settings: Any) -> None:
    """Through a real Celery worker: the next tick is sent for its time; ticks sent
    before their time (a watchdog's, a redelivery) are sent again for it, not run."""
    simulation = three_residents(user, seed=4)
    with celery_worker():
        simulation_run(simulation=simulation, steps=STEPS, pace=PACE)
        for step in range(1, STEPS):
            send(Tick(simulation.pk, step))  # early
        wait_for(
            lambda: Simulation.objects.get(pk=simulation.pk).status != SimulationStatus.RUNNING,
            120,
            "the paced run",
        )
    assert_kept_pace(simulation)
    assert simulation.step == STEPS
    # the early ticks moved nothing: the schedule still counts from the run's start
    assert simulation.pace_from_at == simulation.run_started_at


@pytest.mark.parametrize(
    ("pace", "message"),
    [
        ("10", "A valid number is required."),
        (True, "A valid number is required."),
        (0, "Ensure this value is greater than or equal to"),
        (-5, "Ensure this value is greater than or equal to"),
        (1e9, "Ensure this value is less than or equal to 10000"),
    ],
)
def test_a_bad_pace_is_a_400_naming_it_and_changes_nothing(
    api: APIClient, user: User, pace: Any, message: str
) -> None:
    simulation = three_residents(user, seed=5)
    answer = api.post(
        f"/api/simulations/{simulation.pk}/run/", {"steps": 3, "pace": pace}, format="json"
    )
    assert answer.status_code == 400, answer.content
    errors = error_of(answer)["errors"]
    assert [e["field"] for e in errors] == ["pace"] and message in errors[0]["message"], errors
    simulation.refresh_from_db()
    assert simulation.status == SimulationStatus.IDLE and simulation.pace is None


def test_the_pace_given_to_a_run_is_the_simulations(api: APIClient, user: User) -> None:
    simulation = three_residents(user, seed=6)
    url = f"/api/simulations/{simulation.pk}/"
    answer = api.post(f"{url}run/", {"steps": 3, "pace": 2.5, "pace_alone": "fast"}, format="json")
    assert answer.status_code == 200, answer.content
    shown = api.get(url).json()
    assert (shown["pace"], shown["pace_alone"]) == (2.5, "fast")
    simulation.refresh_from_db()
    assert simulation.status == SimulationStatus.RUNNING


def test_a_bad_pace_alone_is_a_400_naming_it(api: APIClient, user: User) -> None:
    simulation = three_residents(user, seed=11)
    answer = api.post(
        f"/api/simulations/{simulation.pk}/run/",
        {"steps": 3, "pace": 10, "pace_alone": "sometimes"},
        format="json",
    )
    assert answer.status_code == 400, answer.content
    assert [e["field"] for e in error_of(answer)["errors"]] == ["pace_alone"]
    simulation.refresh_from_db()
    assert simulation.status == SimulationStatus.IDLE and simulation.pace_alone == "keep"


@pytest.mark.parametrize(("pace", "resent"), [(0.01, False), (None, True)])
def test_the_watchdog_leaves_a_paced_run_waiting_for_its_next_step(
    user: User, pace: float | None, resent: bool
) -> None:
    """A run that made no progress for longer than the stall period is a lost tick,
    unless its pace has its next step later (here a 10 s step every 1,000 s)."""
    simulation = three_residents(user, seed=7)
    long_ago = timezone.now() - timedelta(seconds=60)
    Event.objects.filter(simulation=simulation).update(created_at=long_ago)
    Simulation.objects.filter(pk=simulation.pk).update(
        status=SimulationStatus.RUNNING,
        step=1,  # its first step came at once; the second is due 1,000 s after the start
        target_step=50,
        pace=pace,
        run_started_step=0,
        run_started_at=long_ago,
        pace_from_step=0,
        pace_from_at=long_ago,
    )
    recorded = RecordingBroker()
    with broker_used(recorded):
        sent = runs_resume_stalled(stall_seconds=10)
    assert (sent == [simulation.pk]) == resent
    assert (recorded.sent == [Tick(simulation.pk, 1)]) == resent


@pytest.mark.django_db(transaction=True)
def test_a_paced_run_keeps_its_pace_and_its_log_across_a_killed_worker(
    user: User, settings: Any
) -> None:
    """The worker dies (SIGKILL) with the next tick waiting for its time; a new one takes
    the run on (the tick redelivered or resent by the watchdog), no step before its time,
    and the log is the one of the same run at full speed."""
    steps = 24
    fast = engine.simulation_run_inline(simulation=three_residents(user, seed=12), steps=steps)
    simulation = three_residents(user, seed=12)
    with celery_worker() as worker:
        simulation_run(simulation=simulation, steps=steps, pace=PACE)
        wait_for(lambda: Simulation.objects.get(pk=simulation.pk).step >= 6, 60, "step 6")
        worker.kill()
        simulation.refresh_from_db()
        assert simulation.status == SimulationStatus.RUNNING and simulation.step < steps
        worker.start()
        wait_for(
            lambda: Simulation.objects.get(pk=simulation.pk).status != SimulationStatus.RUNNING,
            180,
            "the paced run",
        )
    assert_kept_pace(simulation, steps)
    assert [row[1:] for row in log_of(simulation)] == [row[1:] for row in log_of(fast)]


def test_a_tick_long_before_its_time_waits_in_the_broker_a_minute_at_most(user: User) -> None:
    """A step a day away is looked at again every RESEND_SECONDS: no message waits in the
    broker past its visibility timeout (it would be delivered twice)."""
    simulation = paced(
        three_residents(user, seed=13),
        pace=PACE_MIN,
        status=SimulationStatus.RUNNING,
        target_step=10,
        step=1,
        **schedule(0, timezone.now()),
    )
    recorded = RecordingBroker()
    with broker_used(recorded):
        engine_tick(simulation_id=simulation.pk, step=1)
    [tick] = recorded.sent
    assert isinstance(tick, Tick) and tick.step == 1
    assert 0 < tick.not_before - time.time() <= RESEND_SECONDS
    assert Simulation.objects.get(pk=simulation.pk).step == 1  # nothing decided yet
