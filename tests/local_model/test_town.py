"""The town run by a real model: a real Celery worker runs the three residents for half a
sim hour (the day plans, their hours, actions and moves) through the `openai` backend
against the local SmolLM2-135M server."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.contrib.auth.models import User

from agents.events import AGENT_ACTING
from agents.services import simulation_create_from_base
from llm.local import LocalModelServer
from llm.models import ModelCall
from runtime.controls import agent_interview, agent_whisper
from runtime.engine import simulation_run
from tests.factories import N3
from tests.runtime.workers import celery_worker, wait_for
from world.models import Agent, Location, Simulation, SimulationStatus

HALF_HOUR = 180  # steps of 10 s


@pytest.mark.django_db(transaction=True)
def test_half_a_sim_hour_on_the_local_model_parses_or_falls_back_and_names_real_places(
    user: User, on_local_model: LocalModelServer
) -> None:
    simulation = simulation_create_from_base(
        owner=user,
        base=N3,
        seed=1,
        start_time=datetime(2023, 2, 13, 7, 0, tzinfo=UTC),
        config={"cognition": "paper"},
    )
    with celery_worker(**on_local_model.env()):
        simulation_run(simulation=simulation, steps=HALF_HOUR)
        wait_for(
            lambda: Simulation.objects.get(pk=simulation.pk).status != SimulationStatus.RUNNING,
            timeout=1200,
            what="half a sim hour on the local model",
        )
    simulation.refresh_from_db()
    assert simulation.status == SimulationStatus.IDLE, simulation.status_reason
    assert simulation.step == HALF_HOUR

    calls = ModelCall.objects.filter(simulation=simulation)
    assert calls.filter(backend="openai").count() == calls.count() > 20
    # every call ended parsed or as a recorded fallback: none failed the run
    assert not calls.exclude(error="").filter(fallback=False).exists()
    fell_back = calls.filter(fallback=True)
    why = "; ".join(f"{c.task} at step {c.step}: {c.error[:120]}" for c in fell_back)
    assert fell_back.count() < calls.count() / 5, (
        f"{fell_back.count()} of {calls.count()} calls fell back: {why}"
    )

    places = set(Location.objects.filter(town=simulation.town).values_list("address", flat=True))
    acting = simulation.events.filter(kind=AGENT_ACTING)
    assert acting.exists()
    assert {e.payload["address"] for e in acting} <= places

    isabella = Agent.objects.get(simulation=simulation, name="Isabella Rodriguez")
    interview = agent_interview(
        simulation=simulation,
        agent=isabella,
        persona="a news reporter",
        question="What are you doing this morning?",
    )
    answered = ModelCall.objects.filter(simulation=simulation, task="interview").latest("id")
    assert interview.answer and answered.backend == "openai" and not answered.fallback
    agent_whisper(
        simulation=simulation,
        agent=isabella,
        statement="I will invite everyone to my Valentine's Day party at Hobbs Cafe",
    )
    rated = ModelCall.objects.filter(simulation=simulation).latest("id")
    assert rated.backend == "openai" and not rated.fallback and rated.error == ""
