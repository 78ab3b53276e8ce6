"""A base of five residents written here, in the shipped village, created over REST and
run offline with the paper's cognition: every resident plans and moves, only to places of
the village."""

from __future__ import annotations

from collections import Counter

import pytest
from rest_framework.test import APIClient

from agents.models import PlanItem, PlanLevel
from runtime import engine
from world.models import Event, Location, Simulation

from .test_bases_api import five

STEPS = 540  # 06:00 to 09:00 at 20 sim seconds a step


@pytest.mark.django_db(transaction=True)
def test_five_residents_plan_and_move_in_the_village(api: APIClient) -> None:
    base = api.post("/api/bases/", five(), format="json")
    assert base.status_code == 201, base.content
    body = {
        "base": base.json()["id"],
        "sec_per_step": 20,
        "start_time": "2024-05-06T06:00:00Z",
        "config": {"cognition": "paper"},
    }
    created = api.post("/api/simulations/", body, format="json")
    assert created.status_code == 201, created.content
    assert created.json()["base"] == "menders" and created.json()["resident_count"] == 5
    simulation = engine.simulation_run_inline(
        simulation=Simulation.objects.get(pk=created.json()["id"]), steps=STEPS
    )
    assert simulation.status == "idle", simulation.status_reason

    places = set(Location.objects.filter(town=simulation.town).values_list("address", flat=True))
    moved = Counter(
        Event.objects.filter(simulation=simulation, kind="agent.moved").values_list(
            "agent", flat=True
        )
    )
    for agent in simulation.agents.all():
        assert agent.spatial_memory.keys() == {"Brindle Green"}  # the whole village
        days = PlanItem.objects.filter(agent=agent, level=PlanLevel.DAY)
        assert days.count() >= 3, agent.name
        assert moved[agent.name] > 0, agent.name
        acting = Event.objects.filter(simulation=simulation, agent=agent.name, kind="agent.acting")
        assert acting.exists(), agent.name
        for event in acting:
            assert event.payload["address"] in places, (agent.name, event.payload["address"])
    # The routine's lunch and evening go to the village's own cafe, pub or park.
    plans = " ".join(
        PlanItem.objects.filter(simulation=simulation, level=PlanLevel.DAY).values_list(
            "description", flat=True
        )
    )
    assert "lunch at Kettle cafe" in plans and "relaxing at Linden park" in plans, plans
    seeded = simulation.agents.get(name="Ines Vark").seed_statements
    assert "Ines Vark is Bram Vark's aunt" in seeded  # a relationship is a seed memory
