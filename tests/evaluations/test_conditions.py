"""Each condition hides from an interview what the paper's ablation removes, nothing more."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from evaluations.conditions import Condition, condition_memories
from memories.models import MemoryKind
from memories.services import MemoryDraft, memories_create
from tests.factories import three_residents
from world.models import Agent, Simulation

KLAUS = "Klaus Mueller"
ABOUT = "the research paper on gentrification"


@pytest.fixture
def klaus(user: User) -> tuple[Simulation, Agent]:
    simulation = three_residents(user, 2)
    kinds = [MemoryKind.OBSERVATION, MemoryKind.REFLECTION, MemoryKind.PLAN, MemoryKind.THOUGHT]
    drafts = [
        MemoryDraft(agent=KLAUS, kind=kind, description=f"{kind} about {ABOUT}", importance=8)
        for kind in kinds
    ]
    memories_create(simulation=simulation, drafts=drafts)
    return simulation, simulation.agents.get(name=KLAUS)


def _kinds(klaus: tuple[Simulation, Agent], condition: Condition) -> set[str]:
    simulation, agent = klaus
    memories = condition_memories(
        simulation=simulation, agent=agent, condition=condition, query=ABOUT, k=50
    )
    return {m.kind for m in memories}


def test_full_recalls_every_kind(klaus):
    assert {"observation", "reflection", "plan", "thought"} <= _kinds(klaus, Condition.FULL)


def test_no_reflection_sees_no_reflection(klaus):
    kinds = _kinds(klaus, Condition.NO_REFLECTION)
    assert "reflection" not in kinds
    assert {"observation", "plan", "thought"} <= kinds


def test_no_reflection_no_planning_sees_neither(klaus):
    kinds = _kinds(klaus, Condition.NO_REFLECTION_NO_PLANNING)
    assert not kinds & {"reflection", "plan"}
    assert {"observation", "thought"} <= kinds


def test_no_memory_sees_nothing(klaus):
    assert _kinds(klaus, Condition.NO_MEMORY) == set()
