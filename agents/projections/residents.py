"""The residents' projection: agent events onto `world.Agent` rows."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import date
from typing import Any

from django.db import connection
from django.db.models import F
from django.forms.models import model_to_dict

from agents.events import (
    AGENT_ACTING,
    AGENT_ARRIVED,
    AGENT_CHAT_COOLDOWN,
    AGENT_CONTROL,
    AGENT_CREATED,
    AGENT_DAY_PLANNED,
    AGENT_HEADED,
    AGENT_LEARNED,
    AGENT_LEFT,
    AGENT_MOVED,
    AGENT_PERCEIVED,
    AGENT_SUMMARIZED,
    AGENT_THOUGHT_HANDLED,
    AGENT_WHISPERED,
    OBJECT_STATE,
    REFLECTION_DONE,
    REFLECTION_REQUESTED,
    importance_counted,
    is_idle,
)
from agents.persona import IDENTITY_FIELDS
from memories.events import MEMORY_CREATED, MEMORY_RATED
from world.addresses import Address
from world.models import Agent, Event, Simulation
from world.rows import RowReader

STATE_FIELDS = [
    "tile_x",
    "tile_y",
    "destination",
    "path",
    "action",
    "busy_until_step",
    "recent_observations",
    "action_emoji",
    "action_address",
    "action_spo",
    "action_start_step",
    "action_object_state",
    "chatting_with",
    "chat_cooldowns",
    "summary",
    "summary_date",
    "plan_date",
    "importance_since_reflection",
    "reflection_due_step",
    "pending_thought",
    "user_controlled",
    "left_step",
]


def _moved(agent: Agent, p: dict[str, Any]) -> None:
    agent.tile_x, agent.tile_y = p["tile"]
    if agent.path and list(agent.path[0]) == list(p["tile"]):
        agent.path = agent.path[1:]


def _headed(agent: Agent, p: dict[str, Any]) -> None:
    agent.destination, agent.path, agent.action = p["destination"], p["path"], p["action"]


def _arrived(agent: Agent, p: dict[str, Any]) -> None:
    agent.path, agent.action, agent.busy_until_step = [], p["action"], p["busy_until_step"]


# The latest distinct observations kept, as a multiple of the persona's `retention`: the
# reference code keeps `retention` events, so in a crowd larger than the attention
# bandwidth the same unchanged status becomes news again at almost every step.
RETENTION_WINDOW = 8


def _perceived(agent: Agent, p: dict[str, Any]) -> None:
    new = p["observations"]
    seen = [o for o in agent.recent_observations if o not in new] + new
    window = agent.retention * RETENTION_WINDOW
    agent.recent_observations = seen[-window:] if window else []


def _acting(agent: Agent, p: dict[str, Any]) -> None:
    """A new current action: what, where, until when, and the path there."""
    agent.action, agent.action_emoji = p["action"], p.get("emoji", "")
    agent.action_address, agent.action_spo = p.get("address", ""), p.get("spo", [])
    agent.action_start_step, agent.busy_until_step = p["start_step"], p["end_step"]
    agent.destination, agent.path = p.get("address", ""), p.get("path", [])
    agent.chatting_with = p.get("chatting_with", "")
    agent.action_object_state = p.get("object_state", "")


def _summarized(agent: Agent, p: dict[str, Any]) -> None:
    agent.summary, agent.summary_date = p["summary"], date.fromisoformat(p["date"])


def _day_planned(agent: Agent, p: dict[str, Any]) -> None:
    agent.plan_date = date.fromisoformat(p["date"])


def _learned(agent: Agent, p: dict[str, Any]) -> None:
    """A place seen: add the arena and its objects to the agent's spatial memory."""
    memory = {
        w: {s: dict(a) for s, a in sectors.items()} for w, sectors in agent.spatial_memory.items()
    }
    world = next(iter(memory), "")
    arenas = memory.setdefault(world, {}).setdefault(p["sector"], {})
    objects = arenas.setdefault(p["arena"], [])
    arenas[p["arena"]] = objects + [o for o in p["objects"] if o not in objects]
    agent.spatial_memory = memory


def _whispered(agent: Agent, p: dict[str, Any]) -> None:
    agent.pending_thought = p["statement"]


def _thought_handled(agent: Agent, p: dict[str, Any]) -> None:
    agent.pending_thought = ""


def _control(agent: Agent, p: dict[str, Any]) -> None:
    agent.user_controlled = p["user_controlled"]


def _left(agent: Agent, p: dict[str, Any]) -> None:
    agent.left_step = p["step"]
    agent.path, agent.destination, agent.chatting_with = [], "", ""


def _chat_cooldown(agent: Agent, p: dict[str, Any]) -> None:
    agent.chat_cooldowns = {**agent.chat_cooldowns, p["partner"]: p["until_step"]}


# What adds up to the reflection trigger: what the agent perceives, as the paper says,
# and (as the reference code does) what it hears in conversations.


def _observed(agent: Agent, p: dict[str, Any]) -> None:
    agent.importance_since_reflection += importance_counted(MEMORY_CREATED, p)


def _rated(agent: Agent, p: dict[str, Any]) -> None:
    agent.importance_since_reflection += importance_counted(MEMORY_RATED, p)


def _reflection_requested(agent: Agent, p: dict[str, Any]) -> None:
    agent.importance_since_reflection, agent.reflection_due_step = 0, p["due_step"]


def _reflection_done(agent: Agent, p: dict[str, Any]) -> None:
    agent.reflection_due_step = None


_STATE_CHANGES = {
    AGENT_MOVED: _moved,
    AGENT_HEADED: _headed,
    AGENT_ARRIVED: _arrived,
    AGENT_PERCEIVED: _perceived,
    AGENT_ACTING: _acting,
    AGENT_SUMMARIZED: _summarized,
    AGENT_CHAT_COOLDOWN: _chat_cooldown,
    AGENT_DAY_PLANNED: _day_planned,
    AGENT_LEARNED: _learned,
    AGENT_WHISPERED: _whispered,
    AGENT_THOUGHT_HANDLED: _thought_handled,
    AGENT_CONTROL: _control,
    AGENT_LEFT: _left,
    MEMORY_CREATED: _observed,
    MEMORY_RATED: _rated,
    REFLECTION_REQUESTED: _reflection_requested,
    REFLECTION_DONE: _reflection_done,
}


_STATE_TYPES = {
    "tile_x": "int",
    "tile_y": "int",
    "destination": "text",
    "path": "jsonb",
    "action": "text",
    "busy_until_step": "int",
    "recent_observations": "jsonb",
    "action_emoji": "text",
    "action_address": "text",
    "action_spo": "jsonb",
    "action_start_step": "int",
    "action_object_state": "text",
    "chatting_with": "text",
    "chat_cooldowns": "jsonb",
    "summary": "text",
    "summary_date": "date",
    "plan_date": "date",
    "importance_since_reflection": "int",
    "reflection_due_step": "int",
    "pending_thought": "text",
    "user_controlled": "boolean",
    "left_step": "int",
}
assert list(_STATE_TYPES) == STATE_FIELDS
# The rows travel as one JSON parameter: a statement with a parameter per field of 500
# agents is slow to build and to parse, on both sides.
_STATE_SQL = (
    "UPDATE agents_agent AS a SET "
    + ", ".join(f"{f} = v.{f}" for f in STATE_FIELDS)
    + " FROM jsonb_to_recordset(%s::jsonb) AS v(id bigint, "
    + ", ".join(f"{f} {t}" for f, t in _STATE_TYPES.items())
    + ") WHERE a.id = v.id"
)


def _update_state(agents: list[Agent]) -> None:
    """One UPDATE for all agents (Django's bulk_update builds slow CASE expressions)."""
    if not agents:
        return
    rows = [
        {"id": agent.pk, **{name: getattr(agent, name) for name in STATE_FIELDS}}
        for agent in agents
    ]
    with connection.cursor() as cursor:
        cursor.execute(_STATE_SQL, [json.dumps(rows, default=_iso)])


def _iso(value: date) -> str:
    return value.isoformat()


def _set_by_a_user(event: Event) -> bool:
    return event.kind == OBJECT_STATE and not event.agent and not is_idle(event.payload["state"])


def _news_again(agents: Iterable[Agent], payload: dict[str, Any]) -> None:
    """An object state set in words by a user (the stove burns again) is news to whoever
    saw the same state a while ago: it leaves the observations perception skips."""
    seen = f"{Address.parse(payload['address']).leaf} is {payload['state']}"
    for agent in agents:
        if seen in agent.recent_observations:
            agent.recent_observations = [o for o in agent.recent_observations if o != seen]


# What a batch of events changes of residents' rows, read without building a query.
_CHANGED = ("name", "retention", *STATE_FIELDS)
_READ_ALL = RowReader(Agent, where="simulation_id = %s", fields=_CHANGED)
_READ_NAMED = RowReader(Agent, where="simulation_id = %s AND name = ANY(%s)", fields=_CHANGED)


class AgentProjection:
    name = "agents"
    order = 10
    kinds = frozenset({AGENT_CREATED, OBJECT_STATE, *_STATE_CHANGES})
    in_log_order = False

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
        changes = [
            event
            for event in events
            if (
                event.kind in _STATE_CHANGES
                and (
                    event.kind not in (MEMORY_CREATED, MEMORY_RATED)
                    or importance_counted(event.kind, event.payload) > 0
                )
            )
            or _set_by_a_user(event)
        ]
        if not changes:
            return
        # One read and one write for the batch, however many events it holds.
        everyone = any(_set_by_a_user(event) for event in changes)
        if everyone:
            readers = _READ_ALL([simulation.pk])
        else:
            readers = _READ_NAMED([simulation.pk, sorted({event.agent for event in changes})])
        agents = {agent.name: agent for agent in readers}
        # The spatial memory is large and changes rarely: read and written only for the
        # agents that learned a place.
        learned = {event.agent for event in changes if event.kind == AGENT_LEARNED}
        if learned:
            spatial = dict(
                Agent.objects.filter(simulation=simulation, name__in=learned).values_list(
                    "name", "spatial_memory"
                )
            )
            for name, memory in spatial.items():
                agents[name].spatial_memory = memory
        for event in changes:
            if _set_by_a_user(event):
                _news_again(agents.values(), event.payload)
            else:
                _STATE_CHANGES[event.kind](agents[event.agent], event.payload)
        _update_state(list(agents.values()))
        for name in sorted(learned):
            agent = agents[name]
            Agent.objects.filter(pk=agent.pk).update(
                spatial_memory=agent.spatial_memory, spatial_version=F("spatial_version") + 1
            )

    def snapshot(self, simulation: Simulation) -> Any:
        # spatial_version counts the writes of the spatial memory, which depend on how
        # the events were batched (a step live, a chunk on rebuild): a cache key, not state.
        return [
            model_to_dict(agent, exclude=["id", "simulation", "spatial_version"])
            for agent in Agent.objects.filter(simulation=simulation).order_by("name")
        ]
