"""Answers shared between worker processes (llm/answers.py): a run decided by two worker
processes against the policy server asks each call once, however its residents' steps
and the calls sent ahead for them fall between the processes: no (task, prompt) asked
again, and as many calls as the same run in one process."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from typing import Any

import pytest
from django.contrib.auth.models import User

from agents.services import simulation_create_from_base
from llm.ahead import ahead_settle
from llm.models import ModelCall
from llm.policy_server import PolicyServer
from runtime import engine
from tests.factories import N3
from tests.runtime.engine.ahead.test_run import log_of
from tests.runtime.workers import celery_workers, wait_for
from world.models import Simulation, SimulationStatus

START = datetime(2023, 2, 13, 7, 50, tzinfo=UTC)
STEPS = 40  # the first memories are rated (importance_delay 30) from calls sent ahead


def _town(user: User, name: str) -> Simulation:
    return simulation_create_from_base(
        owner=user, base=N3, name=name, seed=5, start_time=START, config={"cognition": "paper"}
    )


def _settled(simulation: Simulation) -> Simulation:
    """Once the calls sent ahead for steps past the run have ended."""
    in_flight = ModelCall.objects.filter(simulation=simulation, finished_at__isnull=True)
    wait_for(lambda: not in_flight.exists(), 60, "the calls in flight to end")
    return simulation


def _asked(simulation: Simulation) -> Counter[tuple[str, str]]:
    """How often each (task, prompt) was asked of the model."""
    return Counter(ModelCall.objects.filter(simulation=simulation).values_list("task", "prompt"))


def _again(asked: Counter[tuple[str, str]]) -> Counter[tuple[str, str]]:
    return Counter({call: n - 1 for call, n in asked.items() if n > 1})


@pytest.mark.django_db(transaction=True)
def test_two_worker_processes_ask_each_call_once(user: User, settings: Any) -> None:
    offline = engine.simulation_run_inline(simulation=_town(user, "offline"), steps=STEPS)
    with PolicyServer(latency="fixed:0.02", slots=8) as server:
        for key, value in server.settings().items():
            setattr(settings, key, value)
        settings.SMALLVILLE_AGENT_THREADS = 1  # no pool threads holding test database sessions
        alone = engine.simulation_run_inline(simulation=_town(user, "one process"), steps=STEPS)
        ahead_settle()
        _settled(alone)
        simulation = _town(user, "two processes")
        env = {**server.env(), "SMALLVILLE_SHARD_SIZE": "1"}
        with celery_workers(2, env):  # a prefork pool of two processes, a shard each
            engine.simulation_run(simulation=simulation, steps=STEPS)
            running = Simulation.objects.filter(pk=simulation.pk, status=SimulationStatus.RUNNING)
            wait_for(lambda: not running.exists(), 240, "the run")
            _settled(simulation)
    simulation.refresh_from_db()
    assert simulation.step == STEPS, simulation.status_reason
    assert log_of(simulation)[1:] == log_of(offline)[1:]  # the first names the simulation
    two = _asked(simulation)
    assert _again(two) - _again(_asked(offline)) == Counter(), _again(two)
    assert two.total() == _asked(alone).total()
    sent = ModelCall.objects.filter(simulation=simulation, ahead=True)
    assert sent.filter(taken_at__isnull=False).exists()  # answers sent ahead were taken
