"""Who the resident is today: what it did yesterday, read from its memories for the next
morning's plan (the day's plan, whom it talked with, what stayed with it)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from agents.cognition.identity import yesterday
from memories.models import MemoryKind
from memories.services import MemoryDraft, memories_create
from tests.agents.cognition.minds import mind_of
from tests.factories import unseeded_simulation
from world.models import Agent

DAY = 8640  # steps of 10 s


@pytest.mark.django_db
def test_yesterday_is_the_days_plan_whom_it_met_and_what_stayed_with_it(
    user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    simulation = unseeded_simulation(user, monkeypatch)
    agent, other = Agent.objects.filter(simulation=simulation).order_by("name")[:2]
    plan = f"This is {agent.name}'s plan for the day: mend the weir at 9:00, supper at 18:00"
    said = [
        MemoryDraft(agent=agent.name, kind=MemoryKind.PLAN, description=plan, importance=5),
        MemoryDraft(
            agent=agent.name,
            kind=MemoryKind.CONVERSATION,
            description=f"{agent.name} and Wyn Harrow had a conversation about the weir",
            importance=4,
            subject=agent.name,
            predicate="talked with",
            object="Wyn Harrow",
        ),
        MemoryDraft(
            agent=agent.name,
            kind=MemoryKind.THOUGHT,
            description="The mill dam at Skellow burst in the night (Wyn Harrow told me).",
            importance=8,
        ),
        MemoryDraft(agent=agent.name, kind=MemoryKind.THOUGHT, description="Tea", importance=2),
    ]
    memories_create(simulation=simulation, drafts=said)

    told = yesterday(mind_of(agent, simulation=simulation, step=DAY + 6))
    assert told.startswith(f"{plan}.")
    assert f"{agent.name} talked with Wyn Harrow." in told
    assert "The mill dam at Skellow burst" in told and "Tea" not in told  # only what mattered
    # Nothing made that day: the first day, for one with no plan remembered either.
    assert yesterday(mind_of(other, simulation=simulation, step=DAY + 6)) == (
        "This is the first day of the simulation."
    )
