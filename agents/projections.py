"""Projection of the agent events onto `Agent` rows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.forms.models import model_to_dict

from world.eventlog import projection_register
from world.models import Event, Simulation

from .models import Agent

AGENT_CREATED = "agent.created"
AGENT_MOVED = "agent.moved"

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


class AgentProjection:
    name = "agents"
    order = 10
    kinds = frozenset({AGENT_CREATED, AGENT_MOVED})

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
        moves: dict[str, tuple[int, int]] = {}
        for event in events:
            if event.kind == AGENT_MOVED:
                moves[event.agent] = (event.payload["tile"][0], event.payload["tile"][1])
        if moves:
            agents = list(Agent.objects.filter(simulation=simulation, name__in=moves))
            for agent in agents:
                agent.tile_x, agent.tile_y = moves[agent.name]
            Agent.objects.bulk_update(agents, ["tile_x", "tile_y"])

    def snapshot(self, simulation: Simulation) -> Any:
        return [
            model_to_dict(agent, exclude=["id", "simulation"])
            for agent in Agent.objects.filter(simulation=simulation).order_by("name")
        ]


projection_register(AgentProjection())
