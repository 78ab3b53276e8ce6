"""Fixtures of the reflection tests: a cognition that observes, simulations that reflect
quickly, and a rule-answering model server."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User

from agents.cognition import StepContext, cognition_register
from agents.cognition.minimal import MinimalCognition
from agents.services import simulation_create_from_base
from memories.models import MemoryKind
from memories.services import MemoryDraft, memory_event_drafts
from tests.factories import N3
from world.eventlog import EventDraft
from world.models import Agent, Event, Simulation

from .fake_model import FakeModel

KLAUS = "Klaus Mueller"
# (what another resident is seen doing, its importance)
ACTIVITIES = [
    ("talking about his research on gentrification", 5),
    ("painting at the common room", 4),
    ("planning a Valentine's Day party at Hobbs Cafe", 7),
    ("drinking coffee at Hobbs Cafe", 3),
    ("reading a book on urban history", 4),
    ("studying for a physics exam", 5),
    ("writing a research paper at the library", 5),
    ("chatting about the mayoral election", 6),
]


class ObservingCognition(MinimalCognition):
    """Minimal cognition that also sees, now and then, another resident doing something:
    an observation memory with its importance, through the step's decision."""

    def decide(self, *, context: StepContext, agent: Agent) -> list[EventDraft]:
        events = super().decide(context=context, agent=agent)
        rng = context.rng(f"observe {agent.name}")
        if rng.random() < 0.35:
            other = rng.choice(sorted(name for name in context.agents if name != agent.name))
            what, importance = rng.choice(ACTIVITIES)
            draft = MemoryDraft(
                agent=agent.name,
                kind=MemoryKind.OBSERVATION,
                description=f"{other} is {what}",
                importance=importance,
            )
            events += memory_event_drafts(simulation=context.simulation, drafts=[draft])
        return events


cognition_register("observing", ObservingCognition)


def reflecting(user: User, seed: int = 5, threshold: int = 20, **config: Any) -> Simulation:
    """Three residents who observe each other and reflect every ~15 steps."""
    return simulation_create_from_base(
        owner=user,
        base=N3,
        seed=seed,
        config={"cognition": "observing", "reflection_threshold": threshold, **config},
    )


def log_of(simulation: Simulation, **filters: object) -> list[tuple[Any, ...]]:
    return list(
        Event.objects.filter(simulation=simulation, **filters)
        .order_by("seq")
        .values_list("seq", "step", "sim_time", "kind", "agent", "payload")
    )


@pytest.fixture(scope="session")
def server() -> Iterator[FakeModel]:
    server = FakeModel()
    yield server
    server.close()


def embedding_settings(server: FakeModel) -> dict[str, str]:
    """Embeddings from the fake server: hash vectors in a millisecond, not e5 in a second."""
    return {
        "SMALLVILLE_EMBEDDING_BACKEND": "openai",
        "SMALLVILLE_EMBEDDING_BASE_URL": server.base_url,
        "SMALLVILLE_EMBEDDING_MODEL": "fake-embedding",
    }


def model_settings(server: FakeModel) -> dict[str, str]:
    """The `openai` language-model backend on the fake server."""
    return {
        "SMALLVILLE_LLM_BACKEND": "openai",
        "SMALLVILLE_LLM_BASE_URL": server.base_url,
        "SMALLVILLE_LLM_API_KEY": "test-key",
        "SMALLVILLE_LLM_MODEL": "fake-model",
        "SMALLVILLE_LLM_MAX_RETRIES": "0",
    }


@pytest.fixture(autouse=True)
def fast_embeddings(settings: Any, server: FakeModel) -> FakeModel:
    for name, value in embedding_settings(server).items():
        setattr(settings, name, value)
    return server


@pytest.fixture
def fake_model(settings: Any, server: FakeModel) -> Iterator[FakeModel]:
    """Reflection answered by rule through the real `openai` backend."""
    for name, value in model_settings(server).items():
        setattr(settings, name, int(value) if value.isdigit() else value)
    settings.SMALLVILLE_AGENT_THREADS = 1  # no pool threads holding test database sessions
    server.prompts.clear()
    server.priorities.clear()
    yield server
    server.fail_first = 0
    server.delay = 0.0
