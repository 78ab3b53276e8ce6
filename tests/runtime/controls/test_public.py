"""Saying something in public at a place, and a resident leaving the town."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from memories.models import Memory
from runtime.controls.common import ControlConflict
from runtime.controls.public import agent_leave, announce_drafts
from runtime.decisions import decisions_all_stored, decisions_store
from runtime.engine.barrier import tick_commit
from world.eventlog import events_append
from world.models import Agent, Event, Simulation
from world.paths import UnknownAddress

from ...api.test_scenarios import W, village


@pytest.mark.django_db
def test_everyone_in_the_place_hears_it_and_nobody_else(api: APIClient) -> None:
    simulation = Simulation.objects.get(pk=village(api))
    statement = "The ferry runs late on Sundays"
    heard_by = announce_drafts(
        simulation=simulation, address=f"{W}:Alder house", statement=statement
    )
    assert heard_by.listeners == ["Dov Ashby"]
    events_append(simulation=simulation, drafts=heard_by.drafts)
    heard = Memory.objects.filter(simulation=simulation, description=statement)
    # Dov starts in Alder house; Cleo starts on a tile outside it.
    assert set(heard.values_list("agent__name", flat=True)) == {"Dov Ashby"}
    assert all(m.kind == "thought" and m.importance >= 8 for m in heard)
    empty = announce_drafts(simulation=simulation, address=f"{W}:Linden park", statement="x")
    assert empty.drafts == [] and empty.listeners == []
    with pytest.raises(UnknownAddress):
        announce_drafts(simulation=simulation, address=f"{W}:Moon base", statement="x")


@pytest.mark.django_db
def test_a_resident_leaves_once(api: APIClient) -> None:
    simulation = Simulation.objects.get(pk=village(api))
    elke = Agent.objects.get(simulation=simulation, name="Elke Moor")
    event = agent_leave(simulation=simulation, agent=elke)
    assert event.kind == "agent.left" and event.step == 0
    elke.refresh_from_db()
    assert elke.left_step == 0
    assert not Agent.present.filter(simulation=simulation, name="Elke Moor").exists()
    with pytest.raises(ControlConflict):
        agent_leave(simulation=simulation, agent=elke)


@pytest.mark.django_db(transaction=True)
def test_a_resident_who_leaves_mid_step_does_not_hold_up_its_commit(api: APIClient) -> None:
    """Every decision of the step is stored when the resident leaves (a user's DELETE
    between a shard and the commit): the step commits without its decision."""
    simulation = Simulation.objects.get(pk=village(api))
    names = sorted(Agent.objects.filter(simulation=simulation).values_list("name", flat=True))
    moved = {"kind": "agent.moved", "agent": "Elke Moor", "payload": {"tile": [1, 1]}}
    decisions: list[dict[str, object]] = [
        {"agent": name, "events": [moved] if name == "Elke Moor" else []} for name in names
    ]
    decisions_store(simulation_id=simulation.pk, step=0, decisions=decisions)
    agent_leave(
        simulation=simulation, agent=Agent.objects.get(simulation=simulation, name="Elke Moor")
    )
    assert decisions_all_stored(simulation_id=simulation.pk, step=0)
    Simulation.objects.filter(pk=simulation.pk).update(status="paused")
    tick_commit(simulation_id=simulation.pk, step=0)
    simulation.refresh_from_db()
    assert simulation.step == 1
    assert not Event.objects.filter(simulation=simulation, kind="agent.moved").exists()
