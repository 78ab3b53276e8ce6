"""The barrier engine's tick commit: every resident's decision applied in one transaction,
the clock advanced and the next tick sent; nothing while a decision is missing; the tick
a dead worker never sent, sent again."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User

from runtime.decisions import decisions_store
from runtime.dispatch import Tick, Work
from runtime.engine.barrier.commit import hand_on_lost_tick, one_shard, tick_commit
from runtime.models import Decision
from tests.factories import unseeded_simulation
from world.models import Agent, Event, Simulation, SimulationStatus

Capture = Callable[..., Any]


def running(user: User, monkeypatch: pytest.MonkeyPatch, step: int = 0) -> Simulation:
    simulation = unseeded_simulation(user, monkeypatch)
    Simulation.objects.filter(pk=simulation.pk).update(
        status=SimulationStatus.RUNNING, step=step, target_step=10
    )
    simulation.refresh_from_db()
    return simulation


def decide(simulation: Simulation, names: list[str]) -> None:
    decisions: list[dict[str, object]] = [
        {
            "agent": name,
            "events": [{"kind": "agent.moved", "agent": name, "payload": {"tile": [9, 9]}}],
        }
        for name in names
    ]
    decisions_store(simulation_id=simulation.pk, step=simulation.step, decisions=decisions)


def names_of(simulation: Simulation) -> list[str]:
    rows = Agent.objects.filter(simulation=simulation).order_by("name")
    return list(rows.values_list("name", flat=True))


@pytest.mark.django_db
def test_the_commit_waits_for_every_decision_then_applies_them_and_sends_the_next_tick(
    user: User,
    monkeypatch: pytest.MonkeyPatch,
    sent_work: list[Work],
    django_capture_on_commit_callbacks: Capture,
) -> None:
    simulation = running(user, monkeypatch)
    first, *others = names_of(simulation)
    decide(simulation, [first])
    with django_capture_on_commit_callbacks(execute=True):
        tick_commit(simulation_id=simulation.pk, step=0)
    simulation.refresh_from_db()
    assert simulation.step == 0 and sent_work == []  # a decision is missing

    decide(simulation, others)
    with django_capture_on_commit_callbacks(execute=True):
        tick_commit(simulation_id=simulation.pk, step=0)
    simulation.refresh_from_db()
    assert simulation.step == 1
    moved = Event.objects.filter(simulation=simulation, step=1, kind="agent.moved")
    assert sorted(moved.values_list("agent", flat=True)) == [first, *others]
    assert all(
        tile == (9, 9)
        for tile in Agent.objects.filter(simulation=simulation).values_list("tile_x", "tile_y")
    )
    assert not Decision.objects.filter(simulation=simulation).exists()
    assert sent_work == [Tick(simulation.pk, 1)]

    # The same commit again (a redelivery): the step is committed already.
    with django_capture_on_commit_callbacks(execute=True):
        tick_commit(simulation_id=simulation.pk, step=0)
    assert Simulation.objects.get(pk=simulation.pk).step == 1
    assert sent_work == [Tick(simulation.pk, 1)]


@pytest.mark.django_db
def test_the_tick_a_dead_worker_never_sent_is_sent_again_while_the_run_stands_there(
    user: User,
    monkeypatch: pytest.MonkeyPatch,
    sent_work: list[Work],
    django_capture_on_commit_callbacks: Capture,
) -> None:
    simulation = running(user, monkeypatch, step=5)
    with django_capture_on_commit_callbacks(execute=True):
        hand_on_lost_tick(simulation.pk, 4)  # step 4 committed, the run at step 5
        hand_on_lost_tick(simulation.pk, 3)  # long past: its tick was sent
    assert sent_work == [Tick(simulation.pk, 5)]


@pytest.mark.django_db
def test_one_shard_when_the_residents_fit_in_it(
    user: User, monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    simulation = unseeded_simulation(user, monkeypatch)
    residents = Agent.objects.filter(simulation=simulation).count()
    settings.SMALLVILLE_SHARD_SIZE = residents
    assert one_shard(simulation.pk)
    settings.SMALLVILLE_SHARD_SIZE = residents - 1
    assert not one_shard(simulation.pk)
