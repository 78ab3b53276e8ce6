"""Importance ratings off the critical path: a memory made in a step is rated at a fixed
later step, by its owner, from a call sent ahead when the model is behind the network."""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from typing import Any

import pytest
from django.contrib.auth.models import User

from agents.events import PERCEIVED_KINDS
from agents.offline.judgments import importance
from agents.services import simulation_create_from_base
from llm.models import ModelCall
from llm.policy_server import PolicyServer
from memories.models import Memory
from runtime import engine
from tests.factories import N3, SEVEN
from tests.runtime.engine.ahead.test_run import log_of
from world.eventlog import simulation_rebuild, simulation_snapshot
from world.models import Agent, Event, Simulation

STEPS = 150


def town(user: User, start: datetime = SEVEN, **config: Any) -> Simulation:
    return simulation_create_from_base(
        owner=user, base=N3, seed=3, start_time=start, config={"cognition": "paper", **config}
    )


def run(simulation: Simulation, settings: Any, steps: int = STEPS) -> Simulation:
    settings.SMALLVILLE_ENGINE = "barrier"
    return engine.simulation_run_inline(simulation=simulation, steps=steps)


@pytest.mark.django_db(transaction=True)
def test_a_memory_is_rated_by_its_owner_at_its_due_step_and_counts_then(
    user: User, settings: Any
) -> None:
    simulation = run(town(user), settings)
    assert simulation.config["importance_delay"] == 30  # new simulations store the default
    made: dict[tuple[str, int], Event] = {}  # (agent, memory number) -> its event
    counts: Counter[str] = Counter()
    for e in Event.objects.filter(simulation=simulation, kind="memory.created").order_by("seq"):
        counts[e.agent] += 1
        made[(e.agent, counts[e.agent])] = e
    provisional = {key: e for key, e in made.items() if "rating_due" in e.payload}
    assert len(provisional) > 20, len(provisional)
    rated = {
        (e.agent, number): (e.step, score)
        for e in Event.objects.filter(simulation=simulation, kind="memory.rated")
        for number, score in zip(e.payload["numbers"], e.payload["importance"], strict=True)
    }
    assert rated, "nothing was rated in 150 steps"
    for key, created in provisional.items():
        due = created.payload["rating_due"]
        assert due == created.step + 30
        # Made with the stand-in's score, rated at exactly its due step (by its owner: the
        # event names the memory's agent), or still provisional when that is past the run.
        assert created.payload["importance"] == importance(created.payload["description"])
        memory = Memory.objects.get(agent__simulation=simulation, agent__name=key[0], number=key[1])
        if due <= STEPS:
            step, score = rated[key]
            assert step == due and memory.importance == score and memory.rating_due is None
        else:
            assert key not in rated and memory.rating_due == due
    # The reflection trigger counts a perceived memory when it is rated, not before.
    for agent in Agent.objects.filter(simulation=simulation, reflection_due_step=None):
        counted = sum(
            e.payload["importance"]
            for key, e in made.items()
            if key[0] == agent.name
            and key not in provisional
            and e.payload["kind"] in PERCEIVED_KINDS
        ) + sum(
            score
            for key, (_, score) in rated.items()
            if key[0] == agent.name and made[key].payload["kind"] in PERCEIVED_KINDS
        )
        assert agent.importance_since_reflection == counted, agent.name
    live = simulation_snapshot(simulation=simulation)
    simulation_rebuild(simulation=simulation)
    assert simulation_snapshot(simulation=simulation) == live


@pytest.mark.django_db(transaction=True)
def test_ratings_asked_ahead_of_a_slow_model_give_the_offline_log(
    user: User, settings: Any
) -> None:
    """Through the policy server (offline answers, 0.1 s a call) each rating is sent in the
    background steps before it is due, and the log is the offline run's."""
    offline = run(town(user), settings)
    simulation = town(user)
    with PolicyServer(latency="fixed:0.1") as server:
        for key, value in server.settings().items():
            setattr(settings, key, value)
        run(simulation, settings)
    assert [x[1:] for x in log_of(simulation)] == [y[1:] for y in log_of(offline)]
    due_steps = {
        (e.agent, e.step) for e in Event.objects.filter(simulation=simulation, kind="memory.rated")
    }
    calls = ModelCall.objects.filter(simulation=simulation, task="importance_many")
    assert len(due_steps) >= 3 and calls.count() >= len(due_steps), calls.count()
    # Each agent's calls come in the order of its due steps; each was admitted while the
    # log stood at least a step before the rating's due step: nothing waited on it.
    for agent in {agent for agent, _ in due_steps}:
        dues = sorted(due for name, due in due_steps if name == agent)
        admitted = list(
            calls.filter(agent_name=agent, priority=1).order_by("id").values_list("step", flat=True)
        )
        assert len(admitted) >= len(dues)
        late = [
            (due, step)
            for due, step in zip(dues, admitted, strict=False)
            if step is None or step >= due - 1
        ]
        assert not late, (agent, late)
