"""One simulation across several workers (runtime/engine/ahead/spread.py): two real Celery
worker processes on the real Redis decide the groups of one run, and its log equals the
barrier's; a worker killed mid-run loses nothing."""

from __future__ import annotations

import os
import signal
from typing import Any

import pytest
from django.contrib.auth.models import User

from agents.services import simulation_create_from_base
from bench.towns import residents_spread
from llm.models import ModelCall
from llm.policy_server import PolicyServer
from llm.settlement import ABANDONED
from runtime import engine
from runtime.engine.ahead.spread import group_store, groups_forget, groups_stored
from runtime.engine.run import simulation_run
from runtime.workerproc import WorkerProcess
from tests.factories import N25, SEVEN, three_residents
from tests.runtime.workers import celery_workers, wait_for
from world.eventlog import EventDraft, simulation_rebuild, simulation_snapshot
from world.models import Simulation, SimulationStatus

from .test_run import log_of

SPREAD = {
    "SMALLVILLE_ENGINE": "ahead",
    "SMALLVILLE_AHEAD_SPREAD": "1",
    "SMALLVILLE_LEASE_SECONDS": "2",  # a dead worker's groups are taken back in seconds
}


def town(user: User, seed: int, residents: int = 25) -> Simulation:
    simulation = simulation_create_from_base(
        owner=user, base=N25, seed=seed, start_time=SEVEN, config={"cognition": "paper"}
    )
    if residents > 25:
        residents_spread(simulation, residents, seed=seed)
    return simulation


def barrier_log(user: User, settings: Any, seed: int, residents: int, steps: int) -> list[Any]:
    settings.SMALLVILLE_ENGINE = "barrier"
    twin = engine.simulation_run_inline(simulation=town(user, seed, residents), steps=steps)
    assert twin.status == SimulationStatus.IDLE, twin.status_reason
    return [row[1:] for row in log_of(twin)]


def finished(simulation: Simulation, timeout: float = 600) -> Simulation:
    def done() -> bool:
        simulation.refresh_from_db()
        return simulation.status != SimulationStatus.RUNNING

    wait_for(done, timeout, "the run")
    assert simulation.status == SimulationStatus.IDLE, simulation.status_reason
    return simulation


def calls_of(simulation: Simulation, in_flight: bool = False) -> list[tuple[str, int]]:
    """(holder, the worker's process group) of the run's calls (or those in flight) made
    by processes that live: a process's group is read from its pid."""
    calls = ModelCall.objects.filter(simulation=simulation)
    if in_flight:
        calls = calls.filter(finished_at__isnull=True)
    found = []
    for holder in calls.values_list("holder", flat=True):
        try:
            found.append((holder, os.getpgid(int(holder.split(":")[1]))))
        except (ProcessLookupError, IndexError, ValueError):
            continue
    return found


def deciders(simulation: Simulation, in_flight: bool = False) -> dict[int, int]:
    """Worker process group -> the calls its processes made for the run (or have in
    flight)."""
    found: dict[int, int] = {}
    for _, group in calls_of(simulation, in_flight):
        found[group] = found.get(group, 0) + 1
    return found


def second_worker(first: WorkerProcess, concurrency: int | None = None) -> WorkerProcess:
    second = WorkerProcess(first.queue, first.env, concurrency or first.concurrency, first.pool)
    second.log = first.log.with_name(f"{first.log.stem}-second.log")
    return second


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("seed", "residents", "steps"), [(5, 25, 60), (6, 25, 60), (7, 60, 20)])
def test_two_workers_decide_the_groups_and_the_log_is_the_barriers(
    user: User, settings: Any, seed: int, residents: int, steps: int
) -> None:
    expected = barrier_log(user, settings, seed, residents, steps)
    simulation = town(user, seed, residents)
    with celery_workers(2, SPREAD) as first:
        second = second_worker(first)
        second.start()
        try:
            simulation_run(simulation=simulation, steps=steps)
            finished(simulation)
            by = deciders(simulation)
        finally:
            second.stop()
    # Both workers' processes decided groups (the run's own process is one of them).
    assert {first.pid, second.pid} <= set(by), by
    assert [row[1:] for row in log_of(simulation)] == expected
    live = simulation_snapshot(simulation=simulation)
    simulation_rebuild(simulation=simulation)
    assert simulation_snapshot(simulation=simulation) == live


@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_mid_run_hands_its_groups_on_and_the_log_is_the_barriers(
    user: User, settings: Any
) -> None:
    """Through the policy server (the offline policy's answers, 0.2 s a call). The run's
    process is on the first worker; the second dies (SIGKILL) with calls in flight for
    the groups it holds, which are decided again once their leases lapse."""
    steps = 180
    expected = barrier_log(user, settings, 8, 25, steps)
    simulation = town(user, 8)
    with (
        PolicyServer(latency="fixed:0.2") as server,
        # Threads: a worker decides many groups at once while they wait on the model. The
        # first runs the simulation and has one thread to spare, so the second, with
        # eight, decides most groups, the ones with model calls among them, however
        # late it starts on a loaded machine.
        celery_workers(2, {**SPREAD, **server.env()}, pool="threads") as first,
    ):
        simulation_run(simulation=simulation, steps=steps)
        wait_for(lambda: first.pid in deciders(simulation), 60, "the first worker")
        second = second_worker(first, concurrency=8)
        second.start()
        try:
            wait_for(lambda: frozen_deciding(simulation, second), 300, "the second worker")
            holders = {h for h, group in calls_of(simulation) if group == second.pid}
            second.kill()  # frozen, so the calls it had in flight are still in flight
        finally:
            second.stop()
        simulation.refresh_from_db()
        assert simulation.status == SimulationStatus.RUNNING
        lost = list(
            ModelCall.objects.filter(
                simulation=simulation, holder__in=holders, finished_at__isnull=True
            ).values_list("pk", flat=True)
        )
        assert lost  # its groups were being decided when it died
        finished(simulation)
    # Its calls in flight were settled as abandoned, and its groups decided again.
    errors = ModelCall.objects.filter(pk__in=lost).values_list("error", flat=True)
    assert set(errors) == {ABANDONED}, set(errors)
    assert [row[1:] for row in log_of(simulation)] == expected


def frozen_deciding(simulation: Simulation, worker: WorkerProcess) -> bool:
    """Whether the worker has decided groups and, stopped (SIGSTOP) so that none can finish
    while we look, has a call in flight; if not it is let go on (SIGCONT)."""
    if deciders(simulation).get(worker.pid, 0) < 5:
        return False
    os.killpg(worker.pid, signal.SIGSTOP)
    if deciders(simulation, in_flight=True).get(worker.pid, 0) > 0:
        return True
    os.killpg(worker.pid, signal.SIGCONT)
    return False


@pytest.mark.django_db
def test_a_group_is_stored_once_per_token_and_read_back_as_its_drafts(user: User) -> None:
    """A group decided twice (a slow worker and the run's pickup) keeps its first row; a
    token the run forgot is never read."""
    simulation = three_residents(user, 1)
    first = [
        ("Ada Quill", [EventDraft(kind="agent.moved", agent="Ada Quill", payload={"tile": [3, 4]})])
    ]
    again = [
        ("Ada Quill", [EventDraft(kind="agent.moved", agent="Ada Quill", payload={"tile": [9, 9]})])
    ]
    group_store(simulation_id=simulation.pk, token="t-1", step=7, decided=first)
    group_store(simulation_id=simulation.pk, token="t-1", step=7, decided=again)
    group_store(simulation_id=simulation.pk, token="t-2", step=7, decided=again)
    assert groups_stored(["t-1", "t-3"]) == {"t-1": first}
    groups_forget(simulation_id=simulation.pk, tokens=["t-1"])
    assert groups_stored(["t-1", "t-2"]) == {"t-2": again}
    groups_forget(simulation_id=simulation.pk)
    assert groups_stored(["t-2"]) == {}
