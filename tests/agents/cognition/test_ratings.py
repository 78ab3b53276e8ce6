"""Importance ratings off the critical path: a resident's step rates its memories due by
the step (one call, one `memory.rated`), and leaves the ones due later alone."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from agents.cognition.ratings import importance_delay, importance_rate_many, ratings_apply
from memories.events import MEMORY_RATED
from memories.selectors import Unrated
from tests.factories import unseeded_simulation
from world.models import Agent, Simulation

from .minds import mind_of


def test_the_delay_is_the_configs_and_none_for_configs_stored_before_it() -> None:
    assert importance_delay(Simulation(config={"importance_delay": 30})) == 30
    assert importance_delay(Simulation(config={})) == 0


def test_a_resident_with_nothing_to_rate_rates_nothing() -> None:
    mind = mind_of(Agent(name="Odile Varga"))
    ratings_apply(mind)
    assert mind.out == []


@pytest.mark.django_db
def test_the_memories_due_by_the_step_are_rated_in_one_event(
    user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    simulation = unseeded_simulation(user, monkeypatch)
    agent = Agent.objects.filter(simulation=simulation).order_by("name").first()
    assert agent is not None
    unrated = [
        Unrated(
            number=4, kind="observation", description="A heron lands on the pond", rating_due=11
        ),
        Unrated(number=5, kind="thought", description="The guild votes on Friday", rating_due=11),
        Unrated(number=6, kind="observation", description="The kettle sings", rating_due=40),
    ]
    mind = mind_of(agent, simulation=simulation, town=simulation.town, unrated=unrated)
    ratings_apply(mind)  # step 10: its events are the log's step 11
    (rated,) = mind.out  # the one due at step 40 waits for its step
    assert rated.kind == MEMORY_RATED and rated.agent == agent.name
    assert rated.payload["numbers"] == [4, 5]
    assert rated.payload["kinds"] == ["observation", "thought"]
    scores = rated.payload["importance"]
    assert len(scores) == 2 and all(1 <= score <= 10 for score in scores)
    # The same memories rated again by the same resident: the same answer.
    again = importance_rate_many(
        simulation, agent, ["A heron lands on the pond", "The guild votes on Friday"]
    )
    assert again == scores
