"""What both engines share of deciding a step: one resident's decision or its error, many
decided at once in the order asked, and how many at once."""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from typing import Any

import pytest

from agents.cognition import StepContext
from runtime.engine.decide import agent_threads, decide_all, decide_one
from world.eventlog import EventDraft
from world.models import Agent, Simulation, Town

NAMES = ["Ada Quist", "Bram Oduya", "Cleo Marsh"]


class Scripted:
    """A cognition whose residents each say their name; one fails, one waits for another."""

    def __init__(self, failing: str = "", waits_for: tuple[str, str] | None = None) -> None:
        self.failing, self.waits_for = failing, waits_for
        self.decided = {name: threading.Event() for name in NAMES}

    def decide(self, *, context: StepContext, agent: Agent) -> list[EventDraft]:
        if agent.name == self.failing:
            raise ValueError(f"{agent.name} cannot decide")
        if self.waits_for and agent.name == self.waits_for[0]:
            assert self.decided[self.waits_for[1]].wait(10)
        self.decided[agent.name].set()
        return [EventDraft(kind="agent.said", agent=agent.name, payload={"step": context.step})]


def context() -> StepContext:
    simulation = Simulation(start_time=datetime(2024, 5, 6, tzinfo=UTC), sec_per_step=10)
    agents = {name: Agent(name=name) for name in NAMES}
    return StepContext(
        simulation=simulation, town=Town(world_name="Elmwood"), step=4, agents=agents
    )


def test_a_decision_is_the_residents_events_or_its_error() -> None:
    name, drafts = decide_one(Scripted(), context(), "Bram Oduya")
    assert name == "Bram Oduya"
    assert drafts == [EventDraft(kind="agent.said", agent="Bram Oduya", payload={"step": 4})]
    name, error = decide_one(Scripted(failing="Bram Oduya"), context(), "Bram Oduya")
    assert isinstance(error, ValueError) and str(error) == "Bram Oduya cannot decide"


# A failure in a pool thread checks that thread's database connection, which an earlier
# test in the same process may have left open there: the check needs database access.
@pytest.mark.django_db
def test_residents_decided_at_once_come_back_in_the_order_asked(settings: Any) -> None:
    settings.SMALLVILLE_LLM_BACKEND = "openai"  # a model over the network: threads help
    settings.SMALLVILLE_LLM_BASE_URL = "http://127.0.0.1:9/v1"  # never called here
    settings.SMALLVILLE_AGENT_THREADS = 3
    assert agent_threads() == 3
    # The first resident finishes last: it waits for the third.
    cognition = Scripted(failing="Bram Oduya", waits_for=("Ada Quist", "Cleo Marsh"))
    decided = decide_all(cognition, context(), NAMES)
    assert [name for name, _ in decided] == NAMES
    assert isinstance(decided[1][1], ValueError)
    assert [d.agent for d in decided[0][1]] == ["Ada Quist"]  # type: ignore[union-attr]


def test_the_offline_backend_decides_one_resident_at_a_time(settings: Any) -> None:
    settings.SMALLVILLE_LLM_BACKEND = "offline"
    settings.SMALLVILLE_AGENT_THREADS = 8
    assert agent_threads() == 1
