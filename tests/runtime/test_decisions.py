"""Staged decisions: each resident's events for a step, stored once until the commit."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from runtime.decisions import (
    decision_stand_still,
    decisions_all_stored,
    decisions_store,
    decisions_stored,
    decisions_stored_names,
)
from tests.factories import unseeded_simulation
from world.models import Agent, Simulation, SimulationStatus


def _names(simulation: Simulation) -> list[str]:
    rows = Agent.objects.filter(simulation=simulation).order_by("name")
    return list(rows.values_list("name", flat=True))


@pytest.mark.django_db
def test_a_decision_is_stored_once_and_the_step_is_decided_when_all_are(
    user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    simulation = unseeded_simulation(user, monkeypatch)
    first, *others = _names(simulation)
    moved = [{"kind": "agent.moved", "agent": first, "payload": {"tile": [1, 2]}}]
    decisions_store(
        simulation_id=simulation.pk, step=3, decisions=[{"agent": first, "events": moved}]
    )
    # A redelivered task stores its decision again: the first one stays.
    decisions_store(simulation_id=simulation.pk, step=3, decisions=[{"agent": first, "events": []}])
    assert decisions_stored(simulation=simulation, step=3, names=[first, *others]) == {first: moved}
    assert decisions_stored_names(simulation_id=simulation.pk, step=3) == [first]
    assert not decisions_all_stored(simulation_id=simulation.pk, step=3)

    rest: list[dict[str, object]] = [{"agent": name, "events": []} for name in others]
    decisions_store(simulation_id=simulation.pk, step=3, decisions=rest)
    assert decisions_all_stored(simulation_id=simulation.pk, step=3)
    assert not decisions_all_stored(simulation_id=simulation.pk, step=4)


@pytest.mark.django_db
def test_a_resident_joining_a_run_under_way_stands_still_for_the_step_in_flight(
    user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    simulation = unseeded_simulation(user, monkeypatch)
    name = _names(simulation)[0]
    decision_stand_still(simulation=simulation, agent=name)  # idle: no step in flight
    assert decisions_stored_names(simulation_id=simulation.pk, step=simulation.step) == []
    for status in (SimulationStatus.RUNNING, SimulationStatus.PAUSED):
        simulation.status = status
        simulation.step += 1
        decision_stand_still(simulation=simulation, agent=name)
        stored = decisions_stored(simulation=simulation, step=simulation.step, names=[name])
        assert stored == {name: []}
