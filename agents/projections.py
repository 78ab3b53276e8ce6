"""Projection of the agent events onto `Agent` rows."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from django.db import connection
from django.forms.models import model_to_dict

from world.eventlog import projection_register
from world.models import Event, Simulation

from .models import Agent

AGENT_CREATED = "agent.created"
AGENT_MOVED = "agent.moved"
AGENT_HEADED = "agent.headed"
AGENT_ARRIVED = "agent.arrived"
AGENT_PERCEIVED = "agent.perceived"

IDENTITY_FIELDS = (
    "first_name",
    "last_name",
    "age",
    "innate",
    "learned",
    "currently",
    "lifestyle",
    "living_area",
    "daily_plan_requirement",
    "vision_radius",
    "attention_bandwidth",
    "retention",
    "recency_decay",
    "reflection_threshold",
    "spatial_memory",
    "seed_statements",
    "user_controlled",
)
STATE_FIELDS = [
    "tile_x",
    "tile_y",
    "destination",
    "path",
    "action",
    "busy_until_step",
    "recent_observations",
]


def _moved(agent: Agent, p: dict[str, Any]) -> None:
    agent.tile_x, agent.tile_y = p["tile"]
    if agent.path and list(agent.path[0]) == list(p["tile"]):
        agent.path = agent.path[1:]


def _headed(agent: Agent, p: dict[str, Any]) -> None:
    agent.destination, agent.path, agent.action = p["destination"], p["path"], p["action"]


def _arrived(agent: Agent, p: dict[str, Any]) -> None:
    agent.path, agent.action, agent.busy_until_step = [], p["action"], p["busy_until_step"]


def _perceived(agent: Agent, p: dict[str, Any]) -> None:
    seen = agent.recent_observations + p["observations"]
    agent.recent_observations = seen[-agent.retention :] if agent.retention else []


_STATE_CHANGES = {
    AGENT_MOVED: _moved,
    AGENT_HEADED: _headed,
    AGENT_ARRIVED: _arrived,
    AGENT_PERCEIVED: _perceived,
}


_STATE_SQL = """
UPDATE agents_agent AS a SET tile_x = v.tile_x, tile_y = v.tile_y,
    destination = v.destination, path = v.path, action = v.action,
    busy_until_step = v.busy_until_step, recent_observations = v.recent_observations
FROM (VALUES {rows}) AS v(id, tile_x, tile_y, destination, path, action, busy_until_step,
                          recent_observations)
WHERE a.id = v.id
"""
_STATE_ROW = "(%s::bigint, %s::int, %s::int, %s::text, %s::jsonb, %s::text, %s::int, %s::jsonb)"


def _update_state(agents: list[Agent]) -> None:
    """One UPDATE for all agents (Django's bulk_update builds slow CASE expressions)."""
    if not agents:
        return
    params: list[int | str] = []
    for a in agents:
        params += [a.pk, a.tile_x, a.tile_y, a.destination, json.dumps(a.path), a.action]
        params += [a.busy_until_step, json.dumps(a.recent_observations)]
    with connection.cursor() as cursor:
        cursor.execute(_STATE_SQL.format(rows=", ".join([_STATE_ROW] * len(agents))), params)


class AgentProjection:
    name = "agents"
    order = 10
    kinds = frozenset({AGENT_CREATED, *_STATE_CHANGES})

    def reset(self, simulation: Simulation) -> None:
        Agent.objects.filter(simulation=simulation).delete()

    def apply(self, simulation: Simulation, events: Sequence[Event]) -> None:
        created = [
            Agent(
                simulation=simulation,
                name=event.agent,
                tile_x=event.payload["tile"][0],
                tile_y=event.payload["tile"][1],
                **{k: event.payload[k] for k in IDENTITY_FIELDS if k in event.payload},
            )
            for event in events
            if event.kind == AGENT_CREATED
        ]
        Agent.objects.bulk_create(created)
        changes = [event for event in events if event.kind in _STATE_CHANGES]
        if not changes:
            return
        # One read and one write for the batch, however many events it holds.
        agents = {
            agent.name: agent
            for agent in Agent.objects.filter(
                simulation=simulation, name__in={event.agent for event in changes}
            )
        }
        for event in changes:
            _STATE_CHANGES[event.kind](agents[event.agent], event.payload)
        _update_state(list(agents.values()))

    def snapshot(self, simulation: Simulation) -> Any:
        return [
            model_to_dict(agent, exclude=["id", "simulation"])
            for agent in Agent.objects.filter(simulation=simulation).order_by("name")
        ]


projection_register(AgentProjection())
