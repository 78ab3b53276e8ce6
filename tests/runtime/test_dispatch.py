"""A model slow enough that an agent step's task is delivered again while its worker is
still deciding (the broker's visibility timeout, a watchdog's resend): the second
delivery waits for the first instead of asking the model everything again."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime

import pytest
from django.contrib.auth.models import User

from agents.services import simulation_create_from_base
from llm.models import ModelCall
from llm.policy_server import PolicyServer
from runtime import engine, tasks
from runtime.dispatch import RecordingBroker, broker_used
from tests.factories import N3
from tests.runtime.workers import celery_workers, wait_for
from world.models import Simulation, SimulationStatus

NAMES = ["Isabella Rodriguez", "Klaus Mueller", "Maria Lopez"]


@pytest.mark.django_db(transaction=True)
def test_a_step_delivered_again_while_decided_asks_each_question_once(user: User) -> None:
    """Two worker processes; the morning's plans take about 15 calls of 1 s each, and the
    same agent-step task arrives again a second after the first."""
    simulation = simulation_create_from_base(
        owner=user,
        base=N3,
        seed=4,
        start_time=datetime(2023, 2, 13, 7, 0, tzinfo=UTC),
        config={"cognition": "paper"},
    )
    before = ModelCall.objects.filter(simulation=simulation).count()  # the seed ratings
    server = PolicyServer(latency="fixed:1", slots=8)
    with server, celery_workers(2, server.env()):
        with broker_used(RecordingBroker()):  # claim the run without its first tick
            engine.simulation_run(simulation=simulation, steps=1)
        tasks.agent_steps.delay(simulation.pk, 0, NAMES)
        tasks.agent_steps.apply_async((simulation.pk, 0, NAMES), countdown=1)
        wait_for(
            lambda: Simulation.objects.get(pk=simulation.pk).status != SimulationStatus.RUNNING,
            timeout=180,
            what="the step",
        )
    simulation.refresh_from_db()
    assert simulation.status == SimulationStatus.IDLE, simulation.status_reason
    calls = list(ModelCall.objects.filter(simulation=simulation).order_by("id")[before:])
    assert len(calls) > 10, "the step was too quick to be delivered again while decided"
    asked = Counter((c.step, c.agent_id, c.task, c.prompt) for c in calls)
    twice = [key[:3] for key, n in asked.items() if n > 1]
    assert not twice, f"asked again: {twice}"
