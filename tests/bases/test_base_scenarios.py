"""Scenarios declared in a base file: checked with the base (a 400 naming the field,
nothing written), added to each simulation made from it as pending log events, applied
by the run at their steps."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from agents.bases.format import document_parse
from agents.models import Scenario
from runtime import engine
from tests.api import fields_of
from world.models import Agent, Base, Simulation

from .test_bases_api import W, five, resident

SCENARIOS: list[dict[str, Any]] = [
    {
        "kind": "announce",
        "at": "2024-05-06T00:05:00Z",
        "place": f"{W}:Wren cottage",
        "statement": "The river path floods tonight",
    },
    {
        "kind": "arrive",
        "at": "2024-05-06T00:02:00Z",
        "arrive": resident("Pim Ostrow", "Moss flat", start={"address": f"{W}:Town square"}),
    },
    {"kind": "whisper", "at": "2024-05-06T00:03:00Z", "resident": "pim ostrow",
     "statement": "I left my satchel at the cafe"},
    {"kind": "leave", "at": "2024-05-06T00:04:00Z", "resident": "Elke Moor"},
]  # fmt: skip


def with_scenarios(**change: Any) -> dict[str, Any]:
    return {
        **five(),
        "scenarios": [dict(s, **change.get(str(i), {})) for i, s in enumerate(SCENARIOS)],
    }


@pytest.mark.django_db(transaction=True)
def test_a_bases_scenarios_apply_in_its_simulations(api: APIClient) -> None:
    base = api.post("/api/bases/", with_scenarios(), format="json")
    assert base.status_code == 201, base.content
    assert len(api.get(f"/api/bases/{base.json()['id']}/").json()["scenarios"]) == 4
    created = api.post(
        "/api/simulations/",
        {"base": base.json()["id"], "config": {"cognition": "minimal"}},
        format="json",
    )
    assert created.status_code == 201, created.content
    pk = created.json()["id"]
    pending = api.get(f"/api/simulations/{pk}/scenarios/").json()
    assert [(s["kind"], s["step"], s["status"]) for s in pending] == [
        ("announce", 30, "pending"),
        ("arrive", 12, "pending"),
        ("whisper", 18, "pending"),
        ("leave", 24, "pending"),
    ]
    assert pending[2]["params"]["resident"] == "Pim Ostrow"  # the name as the base spells it

    simulation = engine.simulation_run_inline(simulation=Simulation.objects.get(pk=pk), steps=31)
    assert simulation.status == "idle", simulation.status_reason
    rows = Scenario.objects.filter(simulation=simulation).order_by("step")
    unheard = "nobody was in Brindle Green:Wren cottage to hear it"  # nobody stands there
    assert [(r.applied_step, r.outcome) for r in rows] == [
        (12, ""),
        (18, ""),
        (24, ""),
        (30, unheard),
    ]
    assert rows[3].recipients == [] and rows[2].recipients == ["Elke Moor"]
    pim = Agent.objects.get(simulation=simulation, name="Pim Ostrow")
    assert pim.memories.filter(description="I left my satchel at the cafe").exists()
    assert Agent.objects.get(simulation=simulation, name="Elke Moor").left_step == 24


BAD: list[tuple[str, dict[str, Any]]] = [
    ("scenarios[0].kind", {"0": {"kind": "flood"}}),
    ("scenarios[0].at", {"0": {"at": "2024-05-05T23:59:00Z"}}),  # before the base starts
    ("scenarios[0].place", {"0": {"place": f"{W}:Moon base"}}),
    ("scenarios[0]", {"0": {"resident": "Elke Moor"}}),  # a field its kind does not take
    ("scenarios[2].resident", {"2": {"at": "2024-05-06T00:01:00Z"}}),  # before Pim arrives
    ("scenarios[3].resident", {"3": {"resident": "Nobody Here"}}),
    ("scenarios[1].arrive.name", {"1": {"arrive": resident("Bram Vark", "Moss flat")}}),
    ("scenarios[1].arrive.living_area", {"1": {"arrive": resident("Pim Ostrow", "Mill")}}),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("field", "change"), BAD, ids=[f for f, _ in BAD])
def test_a_bad_scenario_is_a_400_naming_it(
    api: APIClient, field: str, change: dict[str, Any]
) -> None:
    response = api.post("/api/bases/", with_scenarios(**change), format="json")
    assert response.status_code == 400, response.content
    detail = fields_of(response)
    assert any(key and key.startswith(field) for key in detail), detail
    assert not Base.objects.filter(name="menders").exists()


@pytest.mark.django_db
def test_a_simulation_starting_after_a_scenario_is_refused(api: APIClient) -> None:
    base = api.post("/api/bases/", with_scenarios(), format="json").json()
    body = {"base": base["id"], "start_time": "2024-05-07T00:00:00Z"}
    response = api.post("/api/simulations/", body, format="json")
    assert response.status_code == 400 and "start_time" in fields_of(response)
    assert not Simulation.objects.exists()
    assert document_parse(with_scenarios()).scenarios[1].arrive is not None
