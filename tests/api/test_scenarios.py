"""Scenarios and residents who arrive and leave, over REST: add, list, read, cancel; a
resident leaves or arrives living its own day; every bad input a 400 naming its field
with nothing written; another user's simulation is not found."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from agents.models import Scenario
from runtime import engine
from tests.api import fields_of
from world.models import Agent, Event, Simulation

from ..bases.test_bases_api import five
from . import error_of

W = "Brindle Green"


def village(api: APIClient) -> int:
    """The five menders in the village from 06:00, a minute a step (minimal cognition)."""
    base = api.post("/api/bases/", five(), format="json")
    assert base.status_code == 201, base.content
    body = {
        "base": base.json()["id"],
        "sec_per_step": 60,
        "start_time": "2024-05-06T06:00:00Z",
        "config": {"cognition": "minimal"},
    }
    created = api.post("/api/simulations/", body, format="json")
    assert created.status_code == 201, created.content
    return int(created.json()["id"])


def whisper(at: str = "2024-05-06T07:00:00Z", **fields: Any) -> dict[str, Any]:
    return {
        "kind": "whisper",
        "at": at,
        "resident": "Cleo Dunn",
        "statement": "The tandem needs new brakes",
        **fields,
    }


@pytest.mark.django_db(transaction=True)
def test_add_list_read_cancel(api: APIClient) -> None:
    pk = village(api)
    url = f"/api/simulations/{pk}/scenarios/"
    added = api.post(url, whisper(), format="json")
    assert added.status_code == 201, added.content
    body = added.json()
    assert body["number"] == 1 and body["step"] == 60 and body["status"] == "pending"
    assert body["params"] == {"resident": "Cleo Dunn", "statement": "The tandem needs new brakes"}
    notice = {
        "kind": "announce",
        "at": "2024-05-06T06:30:00Z",
        "place": f"{W}:Kettle cafe",
        "statement": "Free repairs on Saturday",
    }
    assert api.post(url, notice, format="json").status_code == 201
    listed = api.get(url).json()
    assert [(s["number"], s["kind"]) for s in listed] == [(1, "whisper"), (2, "announce")]
    assert api.get(f"{url}1/").json() == body

    cancelled = api.delete(f"{url}1/")
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    assert error_of(api.delete(f"{url}1/"))["code"] == "conflict"
    assert [s["number"] for s in api.get(url, {"status": "pending"}).json()] == [2]
    assert api.get(f"{url}9/").status_code == 404
    # Both are log events: a rebuild keeps the cancelled one cancelled.
    kinds = list(Event.objects.filter(simulation_id=pk, kind__startswith="scenario."))
    assert [e.kind for e in kinds] == ["scenario.added"] * 2 + ["scenario.cancelled"]

    # The run applies the pending one at its step, and never the cancelled one.
    engine.simulation_run_inline(simulation=Simulation.objects.get(pk=pk), steps=31)
    rows = {s.number: s for s in Scenario.objects.filter(simulation_id=pk)}
    assert rows[2].status == "applied" and rows[2].applied_step == 30
    assert rows[1].status == "cancelled"
    assert api.delete(f"{url}2/").status_code == 409


BAD: list[tuple[str, dict[str, Any]]] = [
    ("kind", whisper(kind="flood")),
    ("at", whisper(at="2024-05-06T05:59:00Z")),  # before the clock starts
    ("at", whisper(at="9999-01-01T00:00:00Z")),  # beyond the clock's range
    ("resident", whisper(resident="Nobody Here")),
    ("statement", whisper(statement="")),
    ("statement", whisper(statement="x" * 1001)),
    ("mood", whisper(mood="grim")),
    ("place", {"kind": "announce", "at": "2024-05-06T07:00:00Z", "place": f"{W}:Moon base",
               "statement": "hello"}),
    ("address", {"kind": "object_state", "at": "2024-05-06T07:00:00Z",
                 "address": f"{W}:Kettle cafe:cafe:jukebox", "state": "playing"}),
    ("name", {"kind": "arrive", "at": "2024-05-06T07:00:00Z", "name": "cleo dunn",
              "address": f"{W}:Town square:square"}),
    ("address", {"kind": "arrive", "at": "2024-05-06T07:00:00Z", "name": "Uma Reed",
                 "address": f"{W}:Nowhere"}),
    ("living_area", {"kind": "arrive", "at": "2024-05-06T07:00:00Z", "name": "Uma Reed",
                     "address": f"{W}:Town square:square", "living_area": f"{W}:Nowhere"}),
    ("resident", {"kind": "leave", "at": "2024-05-06T07:00:00Z", "resident": "Nobody Here"}),
]  # fmt: skip


@pytest.mark.django_db
@pytest.mark.parametrize(("field", "body"), BAD, ids=[f"{f}-{i}" for i, (f, _) in enumerate(BAD)])
def test_bad_input_is_a_400_naming_the_field_and_writes_nothing(
    api: APIClient, field: str, body: dict[str, Any]
) -> None:
    pk = village(api)
    events = Event.objects.filter(simulation_id=pk).count()
    response = api.post(f"/api/simulations/{pk}/scenarios/", body, format="json")
    assert response.status_code == 400, response.content
    assert field in fields_of(response), response.content
    assert Event.objects.filter(simulation_id=pk).count() == events
    assert not Scenario.objects.filter(simulation_id=pk).exists()


@pytest.mark.django_db(transaction=True)
def test_a_time_in_the_past_is_refused(api: APIClient) -> None:
    pk = village(api)
    engine.simulation_run_inline(simulation=Simulation.objects.get(pk=pk), steps=10)
    response = api.post(
        f"/api/simulations/{pk}/scenarios/", whisper(at="2024-05-06T06:05:00Z"), format="json"
    )
    assert response.status_code == 400 and "past" in str(fields_of(response)["at"])
    assert not Scenario.objects.filter(simulation_id=pk).exists()


@pytest.mark.django_db
def test_a_later_arrival_may_be_named_after_it_arrives(api: APIClient) -> None:
    pk = village(api)
    url = f"/api/simulations/{pk}/scenarios/"
    arrive = {
        "kind": "arrive",
        "at": "2024-05-06T07:00:00Z",
        "name": "Uma Reed",
        "address": f"{W}:Town square:square",
    }
    assert api.post(url, arrive, format="json").status_code == 201
    early = api.post(url, whisper(at="2024-05-06T06:30:00Z", resident="Uma Reed"), format="json")
    assert early.status_code == 400 and "resident" in fields_of(early)
    late = api.post(url, whisper(at="2024-05-06T08:00:00Z", resident="Uma Reed"), format="json")
    assert late.status_code == 201, late.content
    again = api.post(url, arrive, format="json")
    assert again.status_code == 400 and "name" in fields_of(again)


@pytest.mark.django_db
def test_another_users_scenarios_are_not_found(api: APIClient, other_api: APIClient) -> None:
    pk = village(api)
    url = f"/api/simulations/{pk}/scenarios/"
    assert api.post(url, whisper(), format="json").status_code == 201
    assert other_api.get(url).status_code == 404
    assert other_api.post(url, whisper(), format="json").status_code == 404
    assert other_api.get(f"{url}1/").status_code == 404
    assert other_api.delete(f"{url}1/").status_code == 404
    assert other_api.delete(f"/api/simulations/{pk}/residents/Cleo Dunn/").status_code == 404
    assert Scenario.objects.get(simulation_id=pk).status == "pending"
    assert Agent.objects.get(simulation_id=pk, name="Cleo Dunn").left_step is None


@pytest.mark.django_db(transaction=True)
def test_a_resident_leaves_and_a_newcomer_lives_its_own_day(api: APIClient) -> None:
    pk = village(api)
    engine.simulation_run_inline(simulation=Simulation.objects.get(pk=pk), steps=5)
    left = api.delete(f"/api/simulations/{pk}/residents/Elke Moor/")
    assert left.status_code == 200, left.content
    assert left.json()["left_step"] == 5
    assert api.delete(f"/api/simulations/{pk}/residents/Elke Moor/").status_code == 409
    listed = {
        r["name"]: r["left_step"]
        for r in api.get(f"/api/simulations/{pk}/residents/").json()["results"]
    }
    assert listed["Elke Moor"] == 5 and listed["Cleo Dunn"] is None

    newcomer = {
        "name": "Uma Reed",
        "address": f"{W}:Town square:square",
        "user_controlled": False,
        "currently": "Uma Reed has come to buy a bicycle",
    }
    arrived = api.post(f"/api/simulations/{pk}/residents/", newcomer, format="json")
    assert arrived.status_code == 201, arrived.content
    assert arrived.json()["user_controlled"] is False

    simulation = engine.simulation_run_inline(simulation=Simulation.objects.get(pk=pk), steps=5)
    assert simulation.status == "idle", simulation.status_reason
    assert not Event.objects.filter(simulation_id=pk, agent="Elke Moor", step__gt=5).exists()
    moved = Event.objects.filter(simulation_id=pk, agent="Uma Reed", kind="agent.moved")
    assert moved.exists()  # it walks on its own, no user sending it


@pytest.mark.django_db(transaction=True)
def test_an_applied_scenario_says_who_it_reached(api: APIClient) -> None:
    """An announcement lists who heard it; one made where nobody stands says so."""
    pk = village(api)
    url = f"/api/simulations/{pk}/scenarios/"
    start = "2024-05-06T06:00:00Z"
    for place in ("Alder house", "Linden park"):
        notice = {"kind": "announce", "at": start, "place": f"{W}:{place}", "statement": "Gales"}
        assert api.post(url, notice, format="json").status_code == 201
    assert api.post(url, whisper(at=start), format="json").status_code == 201
    engine.simulation_run_inline(simulation=Simulation.objects.get(pk=pk), steps=1)
    applied = {s["number"]: s for s in api.get(url).json()}
    assert all(s["status"] == "applied" for s in applied.values())
    # Dov Ashby starts in Alder house; nobody starts in Linden park.
    assert applied[1]["recipients"] == ["Dov Ashby"] and applied[1]["outcome"] == ""
    assert applied[2]["recipients"] == []
    assert applied[2]["outcome"] == f"nobody was in {W}:Linden park to hear it"
    assert applied[3]["recipients"] == ["Cleo Dunn"]
