"""Citations become evidence links to the exact memories shown; bad ones are dropped."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from django.contrib.auth.models import User

from agents.events import REFLECTION_DONE
from agents.reflection.models import JobStatus, ReflectionJob
from agents.reflection.reflect import insights_cited
from agents.services import simulation_create_from_base
from agents.tasks.reflection_insights import Insight
from memories.models import Memory, MemoryKind
from memories.services import MemoryDraft, memories_create
from runtime import engine
from tests.factories import N3
from tests.model_server import ModelServer, task_of
from world.models import Event, Simulation

from .conftest import KLAUS, statements_shown

OBSERVATIONS = [
    ("Maria Lopez is studying for a physics exam", 5),
    ("Maria Lopez is talking about the mayoral election", 6),
    ("Isabella Rodriguez is planning a Valentine's Day party", 7),
    ("Isabella Rodriguez is brewing coffee at Hobbs Cafe", 3),
    ("Maria Lopez is painting in the common room", 4),
]


def observed(user: User) -> Simulation:
    """Klaus has seen enough (25 >= 20) to reflect at the first commit."""
    simulation = simulation_create_from_base(
        owner=user, base=N3, seed=2, config={"cognition": "minimal", "reflection_threshold": 20}
    )
    memories_create(
        simulation=simulation,
        drafts=[
            MemoryDraft(agent=KLAUS, kind=MemoryKind.OBSERVATION, description=d, importance=i)
            for d, i in OBSERVATIONS
        ],
        step=0,
    )
    return simulation


def test_citations_map_to_the_shown_numbers_and_bad_ones_are_dropped(
    caplog: pytest.LogCaptureFixture,
) -> None:
    insights = [
        Insight(insight="Klaus studies with Maria", because=[2, 9, 2, 3, 0], importance=5),
        Insight(insight="Klaus imagines things", because=[7, -1], importance=4),
    ]
    with caplog.at_level(logging.WARNING, logger="agents.reflection.reflect"):
        drafts, dropped = insights_cited(
            agent=KLAUS, question="Q?", insights=insights, shown=[41, 17, 23]
        )
    assert [d.evidence for d in drafts] == [(17, 23)]  # statement 2 is memory 17, 3 is 23
    assert drafts[0].kind == MemoryKind.REFLECTION and drafts[0].importance == 5
    assert [(d["insight"], d["citation"]) for d in dropped] == [
        ("Klaus studies with Maria", 9),
        ("Klaus studies with Maria", 0),
        ("Klaus imagines things", 7),
        ("Klaus imagines things", -1),
        ("Klaus imagines things", None),  # left citing nothing shown
    ]
    assert all(d["shown"] == 3 for d in dropped)
    assert "cites statement 9, but 3 were shown" in caplog.text


@pytest.mark.django_db(transaction=True)
def test_evidence_is_the_memories_the_model_was_shown(
    user: User, fake_model: ModelServer, caplog: pytest.LogCaptureFixture, settings: Any
) -> None:
    settings.SMALLVILLE_LLM_PRIORITY = True
    with caplog.at_level(logging.WARNING, logger="agents.reflection.reflect"):
        simulation = engine.simulation_run_inline(simulation=observed(user), steps=3)
    job = ReflectionJob.objects.get(simulation=simulation, agent=KLAUS)
    # Reflection is background work; the residents' steps are not.
    by_kind: dict[bool, set[Any]] = {}
    for request in fake_model.chat_requests():
        task, priority = task_of(request["body"]), request["body"].get("priority")
        by_kind.setdefault(task.startswith("reflection_"), set()).add(priority)
    assert by_kind == {True: {1}, False: {0}}
    assert (job.requested_step, job.due_step, job.status) == (1, 2, JobStatus.DONE)
    asked = [prompt for task, prompt in fake_model.asked() if task == "reflection_insights"]
    assert len(asked) == 3
    # The questions call saw the latest memories (fewer than 100): seeds and observations.
    questions_prompt = next(p for t, p in fake_model.asked() if t == "reflection_questions")
    klaus = Memory.objects.filter(agent__simulation=simulation, agent__name=KLAUS)
    before = klaus.exclude(kind=MemoryKind.REFLECTION).order_by("number")
    assert list(statements_shown(questions_prompt).values()) == [m.description for m in before]
    reflections = klaus.filter(kind=MemoryKind.REFLECTION).order_by("number")
    assert reflections.count() == 9  # 3 insights for each of 3 questions
    for prompt, question in zip(asked, job.questions, strict=True):
        shown = statements_shown(prompt)
        # Every insight cited statements 1 and 2: the memories shown on those lines.
        answered = reflections.filter(description__endswith=f"on {question}")
        assert answered.count() == 3, question
        for memory in answered:
            cited = [link.memory for link in memory.evidence_links.select_related("memory")]
            assert [m.description for m in cited] == [shown[1], shown[2]]
            assert memory.created == simulation.sim_time_at(2)
            assert memory.depth == 1
    # The first insight of each answer also cited statement n + 1, never shown.
    assert len(job.dropped_citations) == 3
    for dropped, prompt in zip(job.dropped_citations, asked, strict=True):
        assert dropped["citation"] == len(statements_shown(prompt)) + 1 == dropped["shown"] + 1
    done = Event.objects.get(simulation=simulation, kind=REFLECTION_DONE, agent=KLAUS)
    assert done.step == 2 and done.payload["dropped_citations"] == job.dropped_citations
    assert done.payload["reflections"] == reflections.count()
    assert caplog.text.count("were shown; dropped") == 3
