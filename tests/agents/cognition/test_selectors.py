"""Cognition's reads: who holds an object, which commitments of the day are still ahead,
which a plan has not made room for (no database: the rows are given), and the news a
resident would pass on (from the database)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth.models import User

from agents.cognition.recall import important
from agents.cognition.selectors import (
    commitments_ahead_of,
    commitments_unplanned,
    memory_important_list,
    object_holder,
)
from agents.models import Commitment
from memories.models import Memory, MemoryKind
from memories.services import MemoryDraft, memories_create
from tests.agents.cognition.minds import mind_of
from tests.factories import unseeded_simulation
from world.models import Agent

NOON = datetime(2024, 5, 6, 12, 0, tzinfo=UTC)
HALL = "Elmwood:Guild Hall:main hall"


def commitment(number: int, hour: float, memory: int | None = None) -> Commitment:
    """A one-hour commitment starting `hour` hours after the midnight before noon."""
    start = NOON.replace(hour=0) + timedelta(hours=hour)
    return Commitment(
        number=number,
        what=f"meeting {number}",
        address=HALL,
        start=start,
        end=start + timedelta(hours=1),
        memory=memory,
    )


def test_the_holder_is_the_resident_whose_action_set_a_state_not_idle() -> None:
    setters = {"a": ("in use", "Odile"), "b": ("idle", "Odile"), "c": ("on fire", "")}
    assert [object_holder(setters, address) for address in "abcd"] == ["Odile", "", "", ""]


def test_commitments_ahead_are_todays_that_end_after_now_the_latest_made_per_start() -> None:
    rows = [
        commitment(1, 9),  # over by noon
        commitment(2, 11.5),  # under way
        commitment(3, 18),
        commitment(4, 18),  # made later for the same start: it replaces 3
        commitment(5, 24 + 9),  # tomorrow
    ]
    assert [c.number for c in commitments_ahead_of(rows, NOON)] == [2, 4]


def test_a_commitment_no_plan_row_cites_is_unplanned() -> None:
    ahead = [commitment(1, 15, memory=7), commitment(2, 18, memory=9), commitment(3, 20)]
    agent = Agent(name="Odile Varga")
    unplanned = commitments_unplanned(agent=agent, now=NOON, ahead=ahead, cited={7})
    assert [c.number for c in unplanned] == [2]  # 1 is planned; 3 names no memory
    assert commitments_unplanned(agent=agent, now=NOON, ahead=[], cited=set()) == []


@pytest.mark.django_db
def test_the_news_one_tells_is_the_most_important_thoughts_then_the_newest(
    user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    simulation = unseeded_simulation(user, monkeypatch)
    agent = Agent.objects.filter(simulation=simulation).order_by("name").first()
    assert agent is not None
    said = [
        (MemoryKind.THOUGHT, "The guild votes on Friday", 7),
        (MemoryKind.THOUGHT, "The bridge reopens in June", 9),
        (MemoryKind.THOUGHT, "Tea is nice", 3),  # not important enough
        (MemoryKind.OBSERVATION, "A cart passes by", 9),  # a sight, not news
        (MemoryKind.REFLECTION, "The guild matters to the town", 7),
    ]
    memories_create(
        simulation=simulation,
        drafts=[
            MemoryDraft(agent=agent.name, kind=kind, description=text, importance=importance)
            for kind, text, importance in said
        ],
    )
    assert memory_important_list(agent=agent, k=2, now=NOON) == [
        "The bridge reopens in June",
        "The guild matters to the town",  # of two at 7, the newest
    ]


@pytest.mark.django_db
def test_a_resident_tells_anyone_the_one_thought_it_finds_most_important(
    user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One, not two: with two, heard news travelled four hops and reached nearly all of a
    town of 25 in two days (the paper: about half)."""
    simulation = unseeded_simulation(user, monkeypatch)
    agent = Agent.objects.filter(simulation=simulation).order_by("name").first()
    assert agent is not None
    said = [
        ("The ferry to Skellow stops running in May (Odo Brack told me)", 7),
        ("The orchard cider press is for sale", 8),
        ("Wyn Harrow is standing for the parish council (Wyn Harrow told me)", 7),
    ]
    memories_create(
        simulation=simulation,
        drafts=[
            MemoryDraft(agent=agent.name, kind=MemoryKind.THOUGHT, description=text, importance=i)
            for text, i in said
        ],
    )
    mind = mind_of(agent, simulation=simulation)
    assert important(mind, agent) == ["The orchard cider press is for sale"]
    # Where it means to go comes first, besides that one ("I will go to ..." is no news
    # of its own: the news it heard of the happening is still told).
    going = "I will go to the lantern walk at Skellow Quay on Friday."
    memories_create(
        simulation=simulation,
        drafts=[
            MemoryDraft(agent=agent.name, kind=MemoryKind.THOUGHT, description=going, importance=5)
        ],
    )
    number = Memory.objects.get(agent=agent, description=going).number
    start = simulation.start_time + timedelta(days=2)
    Commitment.objects.create(
        simulation=simulation, agent=agent, number=1, what="the lantern walk", address=HALL,
        start=start, end=start + timedelta(hours=2), memory=number, step=0,
    )  # fmt: skip
    mind = mind_of(agent, simulation=simulation)
    assert important(mind, agent) == [going, "The orchard cider press is for sale"]
