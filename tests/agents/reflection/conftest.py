"""Fixtures of the reflection tests: a cognition that observes, simulations that reflect
quickly, and the model server answering reflection by rule (tests/model_server.py).

The rules answer from the prompt alone, so two runs get the same replies: three fixed
questions; insights that cite statements 1 and 2 (as far as there are any) and, in the
first insight of each answer, statement n + 1, which was not shown; importance 4."""

from __future__ import annotations

import re
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
from tests.model_server import ModelServer, PerTask
from world.eventlog import EventDraft
from world.models import Agent, Event, Simulation

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


QUESTIONS = [
    "What does {agent} care about?",
    "Who does {agent} spend time with?",
    "What is {agent} working on?",
]
_LINE = re.compile(r"^(\d+)\. ", re.MULTILINE)


def statements_shown(prompt: str) -> dict[int, str]:
    """The numbered statements of a prompt: number -> text."""
    return {
        int(m.group(1)): m.string[m.end() : m.string.find("\n", m.end())]
        for m in _LINE.finditer(prompt)
    }


def questions_for(prompt: str) -> dict[str, Any]:
    agent = re.search(r"memory of (.*):", prompt)
    return {"questions": [q.format(agent=agent[1] if agent else "?") for q in QUESTIONS]}


def insights_for(prompt: str) -> dict[str, Any]:
    shown = len(statements_shown(prompt))
    question = re.search(r'recalled for the question "(.*)":', prompt)
    topic = question.group(1) if question else "?"
    cited = [n for n in (1, 2) if n <= shown]
    return {
        "insights": [
            {
                "insight": f"Insight {i} on {topic}",
                "because": cited + ([shown + 1] if i == 1 else []),
                "importance": 5,
            }
            for i in range(1, 4)
        ]
    }


@pytest.fixture(scope="session")
def server() -> Iterator[ModelServer]:
    rules = {"reflection_questions": questions_for, "reflection_insights": insights_for}
    server = ModelServer(PerTask(rules, default={"importance": 4}), embedding_dimensions=384)
    yield server
    server.close()


def embedding_settings(server: ModelServer) -> dict[str, str]:
    """Embeddings from the fake server: hash vectors in a millisecond, not e5 in a second."""
    return server.embedding_settings()


def model_settings(server: ModelServer) -> dict[str, str]:
    """The `openai` language-model backend on the fake server."""
    return {**server.llm_settings(), "SMALLVILLE_LLM_MAX_RETRIES": "0"}


@pytest.fixture(autouse=True)
def fast_embeddings(settings: Any, server: ModelServer) -> ModelServer:
    for name, value in embedding_settings(server).items():
        setattr(settings, name, value)
    return server


@pytest.fixture
def fake_model(settings: Any, server: ModelServer) -> Iterator[ModelServer]:
    """Reflection answered by rule through the real `openai` backend."""
    for name, value in model_settings(server).items():
        setattr(settings, name, int(value) if value.isdigit() else value)
    settings.SMALLVILLE_AGENT_THREADS = 1  # no pool threads holding test database sessions
    server.reset()
    yield server
    server.reset()
