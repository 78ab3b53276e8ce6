"""Diffusion, attendance and density read back from a small simulation whose log the test writes."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.contrib.auth.models import User

from agents.events import agent_moved
from agents.services import simulation_create_from_base
from evaluations.emergence import (
    density,
    diffusion,
    emergence_measure,
    remembered,
    sector_tiles,
)
from evaluations.named import measures_resolve
from memories.models import MemoryKind
from memories.services import MemoryDraft, memories_create
from tests.factories import N3
from world.eventlog import events_append
from world.models import Simulation

ISABELLA, MARIA, KLAUS = "Isabella Rodriguez", "Maria Lopez", "Klaus Mueller"
START = datetime(2023, 2, 14, 16, 0, tzinfo=UTC)  # the party window opens at step 360


@pytest.fixture
def town_day(user: User) -> Simulation:
    simulation = simulation_create_from_base(
        owner=user, base=N3, seed=1, start_time=START, config={"cognition": "paper"}
    )
    assert simulation.sec_per_step == 10
    town = simulation.town
    cafe = sorted(sector_tiles(town, "Hobbs Cafe"))
    inside = (cafe[0] % town.width, cafe[0] // town.width)
    outside = next(
        (i % town.width, i // town.width) for i in range(town.width, 10**6) if i not in cafe
    )

    def tell(step: int, agent: str, kind: MemoryKind, text: str, source: dict[str, str]) -> None:
        draft = MemoryDraft(agent=agent, kind=kind, description=text, importance=5, source=source)
        memories_create(simulation=simulation, drafts=[draft], step=step)

    tell(
        10,
        MARIA,
        MemoryKind.THOUGHT,
        "Isabella Rodriguez is throwing a Valentine's Day party at Hobbs Cafe",
        {"from": ISABELLA},
    )
    tell(
        20,
        KLAUS,
        MemoryKind.THOUGHT,
        "There is a party at Hobbs Cafe on Valentine's Day",
        {"from": MARIA},
    )
    tell(
        30,
        KLAUS,
        MemoryKind.CONVERSATION,
        "Klaus Mueller and Isabella Rodriguez talked about research",
        {},
    )
    for step, agent, tile in [
        (100, ISABELLA, outside),  # leaves before the window, never comes back
        (200, KLAUS, inside),  # already there when the window opens...
        (450, KLAUS, outside),  # ...and leaves inside it: still at the party
        (400, MARIA, inside),  # comes during the window
    ]:
        events_append(
            simulation=simulation, drafts=[agent_moved(agent=agent, tile=tile)], step=step
        )
    Simulation.objects.filter(pk=simulation.pk).update(step=500)
    simulation.refresh_from_db()
    return simulation


def test_diffusion_follows_the_memos_sources_hop_by_hop(town_day: Simulation):
    party = measures_resolve(town_day).facts[0]  # the Ville bases' data: the party
    news = diffusion(town_day, remembered(town_day), ISABELLA, party.about)

    assert news["holders"] == 2
    assert news["by_hop"] == {"1": 1, "2": 1}
    assert news["residents"] == {
        MARIA: {"hop": 1, "from": ISABELLA, "first_heard": "2023-02-14 16:01"},
        KLAUS: {"hop": 2, "from": MARIA, "first_heard": "2023-02-14 16:03"},
    }
    assert news["of_the_others"] == "2 of 2 (100%)"


def test_attendance_is_who_stood_in_the_cafe_during_the_window(town_day: Simulation):
    named = measures_resolve(town_day)
    (party,) = emergence_measure(simulation=town_day, events=named.events)["events"]

    assert party["came_residents"] == [KLAUS, MARIA]
    assert party["there_the_day_before_same_hours"] == 0  # before the simulation
    # Maria heard of it from Isabella and Klaus from Maria: both were invited, both came.
    assert party["invited_residents"] == [KLAUS, MARIA]
    assert party["invited_and_came"] == [KLAUS, MARIA]


def test_density_counts_pairs_named_in_memories_of_the_kinds_asked(town_day: Simulation):
    memories = remembered(town_day)
    talked = (MemoryKind.CONVERSATION,)

    assert density(town_day, memories, town_day.start_time, talked)["pairs"] == 0
    now = density(town_day, memories, None, talked)
    assert now == {"pairs": 1, "possible_pairs": 3, "density": 0.333}
    # The seed memories of the three name one another: every pair, from the start.
    assert density(town_day, memories, town_day.start_time)["pairs"] == 3
