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
    """The error body every 4xx carries; asserts its shape."""
    body = response.json()
    assert set(body) == {"error"}, body
    error = body["error"]
    assert set(error) == {"code", "message", "detail"}, error
    assert isinstance(error["code"], str) and error["code"]
    assert isinstance(error["message"], str) and error["message"]
    return error


def counts() -> tuple[int, int, int]:
    from world.models import Agent

    return Simulation.objects.count(), Event.objects.count(), Agent.objects.count()
