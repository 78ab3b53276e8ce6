"""The paper's cognition on the three-resident base: a morning of a plausible day."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from django.contrib.auth.models import User

from agents.cognition.paper import take_thought
from agents.events import AGENT_THOUGHT_HANDLED, PLAN_REVISED
from agents.models import PlanItem, PlanLevel
from agents.services import simulation_create_from_base
from llm.models import ModelCall
from llm.tasks import task_get
from memories.models import Memory, MemoryKind
from runtime import engine
from tests.database import module_rows
from tests.factories import N3, unseeded_simulation
from world.eventlog import simulation_rebuild, simulation_snapshot
from world.models import Agent, Event, Location, Simulation
from world.paths import walkable

from .minds import mind_of

# From 05:30 to 13:00 at 20 sim seconds a step: waking, work or study, and lunch.
START = datetime(2023, 2, 13, 5, 30, tzinfo=UTC)
STEPS = 1350


@pytest.fixture(scope="module")
def morning(request: pytest.FixtureRequest) -> Iterator[Simulation]:
    """The morning, run once for the tests that read it (each in a transaction of its
    own, rolled back: a rebuild of the log leaves the next test the same rows)."""
    yield from module_rows(request, _morning)


def _morning() -> Simulation:
    simulation = simulation_create_from_base(
        owner=User.objects.create_user(username="morning", password="morning-password-1"),
        base=N3,
        # The offline reaction is a draw per its inputs (talk at 0.5 with one it knows): at
        # this seed each of the three talks by noon (at seeds 1 and 2 Isabella does not).
        seed=3,
        sec_per_step=20,
        start_time=START,
        config={"cognition": "paper"},
    )
    return engine.simulation_run_inline(simulation=simulation, steps=STEPS)


def _actions(simulation: Simulation, agent: str) -> list[dict[str, Any]]:
    return [
        {**e.payload, "at": e.sim_time}
        for e in Event.objects.filter(simulation=simulation, agent=agent, kind="agent.acting")
    ]


@pytest.mark.django_db
def test_a_morning_of_the_three_residents(morning: Simulation) -> None:
    simulation = morning
    assert simulation.status == "idle", simulation.status_reason
    workplaces = {
        "Isabella Rodriguez": "Hobbs Cafe",  # opens the cafe at 8am
        "Klaus Mueller": "Oak Hill College",  # a student at Oak Hill College
        "Maria Lopez": "Oak Hill College",
    }
    for agent in simulation.agents.all():
        actions = _actions(simulation, agent.name)
        home = agent.living_area
        # Sleeps at home, then wakes.
        assert actions[0]["action"] == "sleeping" and actions[0]["address"].startswith(home)
        woke = next(a for a in actions if a["action"] != "sleeping")
        assert woke["at"].hour >= 6
        # Leaves home for the place its identity implies.
        away = [a for a in actions if not a["address"].startswith(home)]
        assert any(workplaces[agent.name] in a["address"] for a in away), agent.name
        # Every action has an emoji and a triple.
        assert all(a["emoji"] and len(a["spo"]) == 3 for a in actions)
        # A day plan of 5-8 items, decomposed into hour blocks and actions.
        levels = set(PlanItem.objects.filter(agent=agent).values_list("level", flat=True))
        assert levels == {PlanLevel.DAY, PlanLevel.HOUR, PlanLevel.ACTION}
        assert 5 <= PlanItem.objects.filter(agent=agent, level=PlanLevel.DAY).count() <= 8
        assert Memory.objects.filter(agent=agent, kind=MemoryKind.PLAN).exists()
        # Holds a conversation, remembered as a memory.
        talks = [c for c in simulation.conversations.all() if agent.name in c.participants]
        assert talks, f"{agent.name} talked with nobody"
        assert Memory.objects.filter(agent=agent, kind=MemoryKind.CONVERSATION).exists()
        assert Memory.objects.filter(agent=agent, kind=MemoryKind.OBSERVATION).exists()

    # Every model call answered in its task's schema.
    calls = ModelCall.objects.filter(simulation=simulation)
    assert calls.exists() and not calls.exclude(error="").exists()
    for call in calls:
        task_get(call.task).output.model_validate(call.output)

    # The log rebuilds to the same state.
    live = simulation_snapshot(simulation=simulation)
    simulation_rebuild(simulation=simulation)
    assert simulation_snapshot(simulation=simulation) == live


@pytest.mark.django_db
def test_no_resident_is_sent_to_an_unknown_place_or_tile(morning: Simulation) -> None:
    simulation = morning
    addresses = set(Location.objects.filter(town=simulation.town).values_list("address", flat=True))
    for agent in simulation.agents.all():
        known = agent.spatial_memory["the Ville"]
        actions = _actions(simulation, agent.name)
        assert actions, agent.name
        for action in actions:
            address = action["address"]
            assert address in addresses, address
            _, sector, arena, *_ = address.split(":")
            assert arena in known.get(sector, {}), (agent.name, address)
            for x, y in action["path"]:
                assert walkable(town=simulation.town, tile=(x, y))
        moves = Event.objects.filter(simulation=simulation, agent=agent.name, kind="agent.moved")
        assert moves.exists(), agent.name
        for move in moves:
            assert walkable(town=simulation.town, tile=tuple(move.payload["tile"]))


def test_without_a_thought_the_inner_voice_changes_nothing() -> None:
    mind = mind_of(Agent(name="Odile Varga"))
    assert take_thought(mind) is False
    assert mind.out == [] and mind.thought == ""


@pytest.mark.django_db
def test_a_thought_revises_the_plan_from_now_and_is_handled_once(
    user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    simulation = unseeded_simulation(user, monkeypatch)
    agent = Agent.objects.filter(simulation=simulation).order_by("name").first()
    assert agent is not None
    agent.pending_thought = "I would like a quiet afternoon with a book."
    mind = mind_of(agent, simulation=simulation, town=simulation.town)
    assert take_thought(mind) is True
    assert [(d.kind, d.agent) for d in mind.out] == [
        (PLAN_REVISED, agent.name),
        (AGENT_THOUGHT_HANDLED, agent.name),
    ]  # it names no time: no commitment
    assert mind.out[0].payload == {"from": mind.now.isoformat()}  # its actions from now on
    assert mind.thought == agent.pending_thought
