"""A resident's prompts do not depend on how the residents are split: the prompts of a
25-resident step, every one compared as text from the ledger, are the same decided in
one shard in this process, in shards of 5 or of 1 spread over two worker processes, and
by the engine that runs residents ahead."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from typing import Any

import pytest
from django.contrib.auth.models import User

from agents.services import simulation_create_from_base
from llm.models import ModelCall
from runtime import engine
from tests.factories import N25
from tests.runtime.workers import celery_workers, wait_for
from world.eventlog import simulation_fork
from world.models import Simulation, SimulationStatus

START = datetime(2023, 2, 13, 7, 30, tzinfo=UTC)  # the day planned, the first talks


def _prompts(simulation: Simulation) -> Counter[tuple[str, str, str]]:
    """Who asked what in the simulation's run (a fork's ledger starts empty)."""
    calls = ModelCall.objects.filter(simulation=simulation)
    return Counter(calls.values_list("agent_name", "task", "prompt"))


def _through_workers(parent: Simulation, shard_size: int) -> Simulation:
    simulation = simulation_fork(simulation=parent, step=0, name=f"shards of {shard_size}")
    with celery_workers(2, {"SMALLVILLE_SHARD_SIZE": str(shard_size)}):
        engine.simulation_run(simulation=simulation, steps=1)
        running = Simulation.objects.filter(pk=simulation.pk, status=SimulationStatus.RUNNING)
        wait_for(lambda: not running.exists(), 300, "the step")
    simulation.refresh_from_db()
    assert simulation.step == 1, simulation.status_reason
    return simulation


@pytest.mark.django_db(transaction=True)
def test_a_steps_prompts_are_the_same_for_any_shard_size_and_engine(
    user: User, settings: Any
) -> None:
    parent = simulation_create_from_base(
        owner=user, base=N25, seed=4, start_time=START, config={"cognition": "paper"}
    )
    one = engine.simulation_run_inline(
        simulation=simulation_fork(simulation=parent, step=0, name="one shard"), steps=1
    )
    prompts = _prompts(one)
    assert {"day_plan", "converse_line", "conversation_takeaways"} <= {t for _, t, _ in prompts}
    settings.SMALLVILLE_ENGINE = "ahead"
    ahead = engine.simulation_run_inline(
        simulation=simulation_fork(simulation=parent, step=0, name="ahead"), steps=1
    )
    assert _prompts(ahead) == prompts
    settings.SMALLVILLE_ENGINE = "barrier"
    for shard_size in (5, 1):
        split = _prompts(_through_workers(parent, shard_size))
        assert split == prompts, (shard_size, split - prompts, prompts - split)
