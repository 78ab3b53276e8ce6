"""The engine that runs residents ahead of each other writes the barrier engine's log."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache

from agents.cognition import objects_by_arena
from agents.services import simulation_create_from_base
from llm.policy_server import PolicyServer
from runtime import engine
from runtime.controls import ControlConflict
from runtime.controls.objects import object_state_set
from runtime.controls.voice import agent_whisper
from runtime.dispatch import RecordingBroker, broker_used
from runtime.engine.ahead import ahead_run
from runtime.engine.run import simulation_run
from runtime.leases import ahead_lease
from runtime.models import StagedCommit
from tests.factories import N25, SEVEN, three_residents
from world.eventlog import simulation_rebuild, simulation_snapshot
from world.models import Agent, Event, Simulation, SimulationStatus


def log_of(simulation: Simulation) -> list[tuple[Any, ...]]:
    return list(
        Event.objects.filter(simulation=simulation)
        .order_by("seq")
        .values_list("seq", "step", "sim_time", "kind", "agent", "payload")
    )


def run(simulation: Simulation, settings: Any, engine_name: str, steps: int) -> Simulation:
    settings.SMALLVILLE_ENGINE = engine_name
    settings.SMALLVILLE_AHEAD_ORDER = "ahead"
    return engine.simulation_run_inline(simulation=simulation, steps=steps)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("seed", [1, 2])
def test_three_residents_same_log_as_the_barrier(user: User, settings: Any, seed: int) -> None:
    barrier = run(three_residents(user, seed), settings, "barrier", 360)
    ahead = run(three_residents(user, seed), settings, "ahead", 360)
    assert ahead.status == SimulationStatus.IDLE, ahead.status_reason
    assert ahead.step == barrier.step == 360
    assert not StagedCommit.objects.filter(simulation=ahead).exists()
    a, b = log_of(ahead), log_of(barrier)
    assert [x[1:] for x in a] == [y[1:] for y in b]
    live = simulation_snapshot(simulation=ahead)
    simulation_rebuild(simulation=ahead)
    assert simulation_snapshot(simulation=ahead) == live


def n25(user: User, seed: int) -> Simulation:
    return simulation_create_from_base(
        owner=user, base=N25, seed=seed, start_time=SEVEN, config={"cognition": "paper"}
    )


def with_user_events(simulation: Simulation, settings: Any, engine_name: str) -> Simulation:
    """60 steps, a whisper and a stove on fire while paused, 120 steps more."""
    run(simulation, settings, engine_name, 60)
    isabella = Agent.objects.get(simulation=simulation, name="Isabella Rodriguez")
    agent_whisper(
        simulation=simulation,
        agent=isabella,
        statement="I am throwing a Valentine's Day party at Hobbs Cafe tomorrow at 5pm",
    )
    object_state_set(
        simulation=simulation,
        address="the Ville:Hobbs Cafe:cafe:cafe customer seating",
        state="covered in spilled coffee",
    )
    return run(simulation, settings, engine_name, 120)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("seed", [5, 6])
def test_twenty_five_residents_same_log_as_the_barrier(
    user: User, settings: Any, seed: int
) -> None:
    barrier = with_user_events(n25(user, seed), settings, "barrier")
    ahead = with_user_events(n25(user, seed), settings, "ahead")
    assert ahead.status == SimulationStatus.IDLE, ahead.status_reason
    a, b = log_of(ahead), log_of(barrier)
    kinds = {row[3] for row in b}
    assert {"conversation.held", "object.state", "memory.created"} <= kinds, kinds
    assert [x[1:] for x in a] == [y[1:] for y in b]
    live = simulation_snapshot(simulation=ahead)
    simulation_rebuild(simulation=ahead)
    assert simulation_snapshot(simulation=ahead) == live


@pytest.mark.django_db(transaction=True)
def test_reflections_while_residents_run_ahead_are_the_barriers(user: User, settings: Any) -> None:
    """A low threshold makes residents reflect within minutes; a reflection reads its
    resident's own state, which stands still until delivered, wherever the log is."""

    def town() -> Simulation:
        return simulation_create_from_base(
            owner=user,
            base=N25,
            seed=5,
            start_time=SEVEN,
            config={"cognition": "paper", "reflection_threshold": 12},
        )

    barrier = run(town(), settings, "barrier", 120)
    ahead = run(town(), settings, "ahead", 120)
    assert ahead.status == SimulationStatus.IDLE, ahead.status_reason
    a, b = log_of(ahead), log_of(barrier)
    delivered = [row for row in b if row[3] == "reflection.done"]
    assert len(delivered) >= 3 and not [row for row in a if row[5].get("failed")], delivered
    assert [x[1:] for x in a] == [y[1:] for y in b]


def tiles_by_step(simulation: Simulation) -> dict[str, dict[int, tuple[int, int]]]:
    """Each resident's tile at every step, from the log."""
    tiles: dict[str, dict[int, tuple[int, int]]] = {}
    for step, agent, payload in (
        Event.objects.filter(simulation=simulation, kind__in=["agent.created", "agent.moved"])
        .order_by("seq")
        .values_list("step", "agent", "payload")
    ):
        tiles.setdefault(agent, {})[step] = tuple(payload["tile"])
    last = simulation.step
    for known in tiles.values():
        tile = known[min(known)]
        for step in range(last + 1):
            tile = known.get(step, tile)
            known[step] = tile
    return tiles


@pytest.mark.django_db(transaction=True)
def test_a_resident_never_runs_ahead_of_one_it_could_perceive(user: User, settings: Any) -> None:
    """Through the policy server at 0.2 s a call, so residents waiting on the model fall
    behind and the others lead as far as the rule lets them."""
    settings.SMALLVILLE_ENGINE = "ahead"
    settings.SMALLVILLE_AHEAD_ORDER = "ahead"
    simulation = n25(user, 5)
    with PolicyServer(latency="fixed:0.2") as server:
        for key, value in server.settings().items():
            setattr(settings, key, value)
        with broker_used(RecordingBroker()):
            simulation_run(simulation=simulation, steps=240)
        ahead = ahead_run(simulation_id=simulation.pk)
    assert ahead is not None and ahead.most_ahead >= 10, ahead and ahead.most_ahead  # they do
    simulation.refresh_from_db()
    tiles = tiles_by_step(simulation)
    changes = object_changes(simulation)
    vision = 8
    checked = objects_checked = 0
    for step, group, steps in ahead.trace:
        for name in group:
            here = tiles[name][step]
            for other, at in steps.items():
                if other in group or at >= step:
                    continue
                # Every tile the other stood on from where it was to this step.
                for u in range(at, step + 1):
                    there = tiles[other][u]
                    near = max(abs(here[0] - there[0]), abs(here[1] - there[1]))
                    assert near > vision, (name, step, other, u, near)
                    checked += 1
                # Every object the other changed meanwhile (its events of steps at+1 ..
                # step), which this step's state holds in the barrier engine.
                for changed, object_tiles in changes.get(other, []):
                    if at < changed <= step:
                        near = min(max(abs(here[0] - x), abs(here[1] - y)) for x, y in object_tiles)
                        assert near > vision, (name, step, other, changed, near)
                        objects_checked += 1
    assert checked > 1000 and objects_checked > 0, (checked, objects_checked)


def object_changes(simulation: Simulation) -> dict[str, list[tuple[int, list[tuple[int, int]]]]]:
    """Per resident, the steps at which it changed an object, with the object's tiles."""
    objects = objects_by_arena(simulation.town)
    changes: dict[str, list[tuple[int, list[tuple[int, int]]]]] = {}
    for step, agent, payload in (
        Event.objects.filter(simulation=simulation, kind="object.state")
        .exclude(agent="")
        .values_list("step", "agent", "payload")
    ):
        arena, name = payload["address"].rsplit(":", 1)
        found = [(x, y) for x, y, n in objects.get(arena, []) if n == name]
        assert found, payload["address"]
        changes.setdefault(agent, []).append((step, found))
    return changes


@pytest.mark.django_db
def test_a_control_waits_while_residents_stand_ahead_of_the_log(user: User) -> None:
    """A whisper while a group's commit is staged ahead of the log is refused (409 in the
    API) and changes nothing: applied at the log's step, it would land behind the
    resident's own later memories."""
    simulation = three_residents(user, 1)
    StagedCommit.objects.create(simulation=simulation, step=0, agents=["Klaus Mueller"])
    before = log_of(simulation)
    klaus = Agent.objects.get(simulation=simulation, name="Klaus Mueller")
    with pytest.raises(ControlConflict, match="ahead of its log"):
        agent_whisper(simulation=simulation, agent=klaus, statement="Maria likes physics")
    assert log_of(simulation) == before


@pytest.mark.django_db
def test_a_control_waits_while_a_run_holds_residents_ahead_in_its_process(user: User) -> None:
    """Steps that decided nothing are recorded by the run's next commit, not at once: while
    a process runs the residents ahead of each other, a whisper is refused (409 in the
    API) and changes nothing, staged rows or not; once the run is over it applies."""
    simulation = three_residents(user, 1)
    Simulation.objects.filter(pk=simulation.pk).update(status=SimulationStatus.RUNNING)
    simulation.refresh_from_db()
    before = log_of(simulation)
    klaus = Agent.objects.get(simulation=simulation, name="Klaus Mueller")
    cache.set(ahead_lease(simulation.pk), 1, timeout=30)
    try:
        with pytest.raises(ControlConflict, match="ahead of its log"):
            agent_whisper(simulation=simulation, agent=klaus, statement="Maria likes physics")
        assert log_of(simulation) == before
    finally:
        cache.delete(ahead_lease(simulation.pk))
    agent_whisper(simulation=simulation, agent=klaus, statement="Maria likes physics")
    assert len(log_of(simulation)) > len(before)
