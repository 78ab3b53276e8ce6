"""The social loop's last part: what a resident keeps from a conversation (a memo saying
who told it, a planning thought) and the commitments it makes from it (at a place it
knows, ahead within a week)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import User

from agents.cognition.news import COMMITMENT_HORIZON, commit, takeaways_keep
from agents.events import AGENT_COMMITTED
from agents.tasks.conversation_takeaways import Takeaways
from agents.tasks.shared import CommitmentOut
from memories.models import MemoryKind
from tests.factories import unseeded_simulation
from world.models import Agent

from .minds import MORNING, mind_of

PLACES = {"Elmwood": {"Guild Hall": {"main hall": ["bench"]}, "Quill Cottage": {"loft": []}}}


def odile() -> Agent:
    return Agent(
        name="Odile Varga",
        spatial_memory=PLACES,
        living_area="Elmwood:Quill Cottage:loft",
    )


def meeting(day: str, start: str = "18:00", end: str = "20:00") -> CommitmentOut:
    return CommitmentOut(
        what="going to the guild meeting",
        place="Guild Hall: main hal",
        date=day,
        start=start,
        end=end,
    )


def test_the_memo_and_the_thought_are_kept_saying_who_told_them() -> None:
    mind = mind_of(odile())
    heard = Takeaways(
        memo="The guild meets on Friday (Bram told me).",
        thought="I want to hear what the guild decides.",
    )
    takeaways_keep(mind, me=mind.agent, partner=Agent(name="Bram Oduya"), result=heard, tag="c1")
    assert [(n.kind, n.description, n.conversation) for n in mind.notes] == [
        (MemoryKind.THOUGHT, heard.memo, "c1"),
        (MemoryKind.THOUGHT, heard.thought, "c1"),
    ]
    assert all(
        n.source == {"from": "Bram Oduya", "conversation": "c1", "step": 10} for n in mind.notes
    )
    assert mind.notes[0].spo == ("Odile Varga", "heard from", "Bram Oduya")
    assert mind.out == []  # no commitment asked for


def test_nothing_is_committed_for_a_time_past_or_beyond_a_week() -> None:
    mind = mind_of(odile())
    past = MORNING - timedelta(days=1)
    beyond = MORNING + COMMITMENT_HORIZON + timedelta(days=1)
    for day in (past, beyond):
        commit(mind, mind.agent, meeting(day.date().isoformat()), memory="a meeting")
    assert mind.out == []


@pytest.mark.django_db
def test_a_commitment_ahead_is_made_at_the_nearest_known_place(
    user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    simulation = unseeded_simulation(user, monkeypatch)
    agent = Agent.objects.filter(simulation=simulation).order_by("name").first()
    assert agent is not None
    agent.spatial_memory = PLACES
    mind = mind_of(agent, simulation=simulation, town=simulation.town)
    day = (simulation.sim_time_at(10) + timedelta(days=1)).date().isoformat()
    # An end before the start: two hours from the start.
    commit(mind, agent, meeting(day, start="18:00", end="17:00"), memory="I will go.", tag="c2")
    (event,) = mind.out
    assert event.kind == AGENT_COMMITTED and event.agent == agent.name
    assert event.payload["address"] == "Elmwood:Guild Hall:main hall"
    assert event.payload["start"].startswith(f"{day}T18:00")
    assert event.payload["end"].startswith(f"{day}T20:00")
    assert (event.payload["memory"], event.payload["conversation"]) == ("I will go.", "c2")
