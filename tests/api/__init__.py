"""Tests of the REST API; helpers shared by its test modules."""

from __future__ import annotations

from typing import Any

from rest_framework.test import APIClient

from agents.events import AGENT_MOVED
from tests.factories import N3 as N3
from tests.factories import N25 as N25
from world.eventlog import EventDraft, events_append
from world.events import SIMULATION_STEPPED
from world.models import Event, Simulation


def create(client: APIClient, base: str = N3, **fields: Any) -> dict[str, Any]:
    """A simulation created through the API, as its JSON (the minimal cognition unless the
    config names another: these tests drive the API, not the paper's cognition)."""
    fields.setdefault("config", {"cognition": "minimal"})
    response = client.post("/api/simulations/", {"base": base, **fields}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def advance(simulation_id: int, steps: int) -> Simulation:
    """Move every resident one tile east per step, as a tick would."""
    simulation = Simulation.objects.get(pk=simulation_id)
    for _ in range(steps):
        step = simulation.step + 1
        drafts = [
            EventDraft(kind=AGENT_MOVED, agent=a.name, payload={"tile": [a.tile_x + 1, a.tile_y]})
            for a in simulation.agents.order_by("name")
        ]
        drafts.append(EventDraft(kind=SIMULATION_STEPPED, payload={"step": step}))
        events_append(simulation=simulation, drafts=drafts, step=step)
    return simulation


def error_of(response: Any) -> dict[str, Any]:
    """The problem (RFC 9457) every error response carries; asserts its shape: the media
    type, the members, `errors` as [{field, message}] (fields at fault in a 400)."""
    assert response["Content-Type"] == "application/problem+json", response["Content-Type"]
    problem = response.json()
    assert {"type", "title", "status", "detail", "code", "errors"} <= set(problem), problem
    assert problem["type"] == "about:blank"
    assert problem["status"] == response.status_code
    assert isinstance(problem["code"], str) and problem["code"]
    assert isinstance(problem["detail"], str) and problem["detail"]
    for error in problem["errors"]:
        assert set(error) == {"field", "message"}, error
        assert error["field"] is None or (isinstance(error["field"], str) and error["field"])
        assert isinstance(error["message"], str) and error["message"]
    assert bool(problem["errors"]) == (response.status_code == 400), problem
    return problem


def fields_of(response: Any) -> dict[str | None, list[str]]:
    """A 400 problem's messages by the path of each field at fault (None: the request)."""
    fields: dict[str | None, list[str]] = {}
    for error in error_of(response)["errors"]:
        fields.setdefault(error["field"], []).append(error["message"])
    return fields


def counts() -> tuple[int, int, int]:
    from world.models import Agent

    return Simulation.objects.count(), Event.objects.count(), Agent.objects.count()
