"""A step whose model calls fell back says so in its events, not only in the ledger."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.contrib.auth.models import User

from agents.services import simulation_create_from_base
from llm.models import ModelCall
from runtime import engine
from tests.factories import N3
from tests.model_server import ModelServer, ok
from world.models import Event


@pytest.mark.django_db(transaction=True)
def test_events_made_from_fallback_answers_name_their_calls(
    openai_llm: ModelServer, user: User
) -> None:
    """A model that never answers in the schema: every call takes its task's fail-safe
    answer, and the first step's events list those calls (task and ledger id)."""
    openai_llm.default = ok("I would rather not answer in JSON.")
    simulation = simulation_create_from_base(
        owner=user,
        base=N3,
        seed=5,
        start_time=datetime(2023, 2, 13, 7, 0, tzinfo=UTC),
        config={"cognition": "paper"},
    )
    engine.simulation_run_inline(simulation=simulation, steps=1)
    fell_back = ModelCall.objects.filter(simulation=simulation, fallback=True)
    assert fell_back.exists()
    marked = [
        mark
        for event in Event.objects.filter(simulation=simulation)
        for mark in event.payload.get("fallbacks", [])
    ]
    assert marked, "no event says it was made from a fallback answer"
    calls = {call.pk: call.task for call in fell_back}
    assert all(calls[mark["call"]] == mark["task"] for mark in marked)
    agents_marked = {
        event.agent
        for event in Event.objects.filter(simulation=simulation, payload__has_key="fallbacks")
    }
    assert agents_marked == {"Isabella Rodriguez", "Maria Lopez", "Klaus Mueller"}
