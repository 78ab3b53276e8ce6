"""Replay of a simulation from its event log: residents' tiles and actions, step by step.

The state at a step is what `agents.projections` would rebuild from the log up to it, for
the fields a viewer draws: a tile (`agent.created`, `agent.moved`), an action (`agent.acting`,
`agent.headed`, `agent.arrived`), an emoji and a partner in conversation (`agent.acting`).
Each resident comes with the steps it arrived (`agent.created`) and left (`agent.left`) at:
a viewer draws it only in between.
A range is sent as the state at its first step and, for each later step, only what changed
(as the reference's movement file did), so a client scrubs a sim day with a few requests.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db import connection
from django.db.models import QuerySet
from django.db.models.fields.json import KeyTextTransform, KeyTransform

from agents.events import (
    AGENT_ACTING,
    AGENT_ARRIVED,
    AGENT_CREATED,
    AGENT_HEADED,
    AGENT_LEFT,
    AGENT_MOVED,
)
from world.models import Agent, Event, Simulation

MAX_REPLAY_STEPS = 2880  # eight sim hours at 10 s a step; a sim day is three requests

_TILE_KINDS = (AGENT_CREATED, AGENT_MOVED)
_ACTION_KINDS = (AGENT_ACTING, AGENT_HEADED, AGENT_ARRIVED)

# Moves are most of a log: Postgres joins each to its resident's index and gives each step's
# as one "index,x,y,index,x,y" string, in seq order (five times faster than a row each).
_MOVES_SQL = """
SELECT e.step, string_agg(
    concat_ws(',', r.i - 1, e.payload->'tile'->>0, e.payload->'tile'->>1), ',' ORDER BY e.seq
)
FROM world_event e
JOIN unnest(%s::text[]) WITH ORDINALITY AS r(name, i) ON r.name = e.agent
WHERE e.simulation_id = %s AND e.step > %s AND e.step <= %s AND e.kind = ANY(%s)
GROUP BY e.step
"""


@dataclass(frozen=True)
class ReplayResident:
    id: int
    name: str
    initials: str
    # In the town from `arrived_step` (its agent.created) until `left_step` (its
    # agent.left, None while it lives there): a viewer draws it only in between.
    arrived_step: int = 0
    left_step: int | None = None


@dataclass
class ReplayStep:
    step: int
    moved: list[int] = field(default_factory=list)  # index, x, y, index, x, y, ...
    # [index, action, emoji, index of the partner in conversation or -1]
    acted: list[list[Any]] = field(default_factory=list)


@dataclass(frozen=True)
class Replay:
    from_step: int
    to_step: int
    last_step: int
    residents: list[ReplayResident]
    tiles: list[int]  # at from_step: x, y per resident in `residents` order
    actions: list[str]
    emojis: list[str]
    partners: list[int]  # index of whom each resident talks with, or -1
    steps: list[ReplayStep]  # from_step + 1 .. to_step, one each, in order


class ReplayRangeInvalid(ValueError):
    """A range that is empty, reversed, too long or past the last committed step."""


def initials(first_name: str, last_name: str, name: str) -> str:
    parts = [p for p in (first_name, last_name) if p] or name.split()
    return "".join(p[0].upper() for p in parts[:2]) or "?"


def _latest(events: QuerySet[Event], kinds: tuple[str, ...]) -> QuerySet[Event]:
    """Each agent's newest event of `kinds` (DISTINCT ON agent, newest seq first)."""
    return events.filter(kind__in=kinds).order_by("agent", "-seq").distinct("agent")


def _range_checked(simulation: Simulation, from_step: int, to_step: int | None) -> int:
    last = simulation.step
    if to_step is None:
        to_step = min(last, from_step + MAX_REPLAY_STEPS)
    if from_step < 0 or from_step > last:
        raise ReplayRangeInvalid(f"from_step must be between 0 and {last} (the last step)")
    if to_step < from_step or to_step > last:
        raise ReplayRangeInvalid(
            f"to_step must be between from_step ({from_step}) and {last} (the last step)"
        )
    if to_step - from_step > MAX_REPLAY_STEPS:
        raise ReplayRangeInvalid(f"at most {MAX_REPLAY_STEPS} steps per request")
    return to_step


def simulation_replay(
    *, simulation: Simulation, from_step: int, to_step: int | None = None
) -> Replay:
    """Residents' tiles and actions at `from_step`, then their changes up to `to_step`
    (default: `MAX_REPLAY_STEPS` later, or the last committed step)."""
    to_step = _range_checked(simulation, from_step, to_step)
    agents = Agent.objects.filter(simulation=simulation).order_by("name")
    rows = list(agents.values_list("id", "name", "first_name", "last_name"))
    log = Event.objects.filter(simulation=simulation)
    arrived: dict[str, int] = {}
    left: dict[str, int] = {}
    comings = log.filter(kind__in=(AGENT_CREATED, AGENT_LEFT)).order_by("seq")
    for agent, kind, step in comings.values_list("agent", "kind", "step"):
        (arrived if kind == AGENT_CREATED else left).setdefault(agent, step)
    residents = [
        ReplayResident(pk, name, initials(first, last, name), arrived.get(name, 0), left.get(name))
        for pk, name, first, last in rows
    ]
    index = {r.name: i for i, r in enumerate(residents)}
    before = log.filter(step__lte=from_step)

    tiles = [0] * (2 * len(residents))
    for agent, tile in _latest(before, _TILE_KINDS).values_list(
        "agent", KeyTransform("tile", "payload")
    ):
        if agent in index:
            tiles[2 * index[agent]], tiles[2 * index[agent] + 1] = tile
    actions = [""] * len(residents)
    for agent, action in _latest(before, _ACTION_KINDS).values_list(
        "agent", KeyTextTransform("action", "payload")
    ):
        if agent in index:
            actions[index[agent]] = action or ""
    emojis, partners = [""] * len(residents), [-1] * len(residents)
    for agent, emoji, partner in _latest(before, (AGENT_ACTING,)).values_list(
        "agent", KeyTextTransform("emoji", "payload"), KeyTextTransform("chatting_with", "payload")
    ):
        if agent in index:
            emojis[index[agent]] = emoji or ""
            partners[index[agent]] = index.get(partner or "", -1)

    steps = [ReplayStep(step) for step in range(from_step + 1, to_step + 1)]
    names = [r.name for r in residents]
    with connection.cursor() as cursor:
        cursor.execute(_MOVES_SQL, [names, simulation.pk, from_step, to_step, list(_TILE_KINDS)])
        for step, moved in cursor.fetchall():
            steps[step - from_step - 1].moved = [int(v) for v in moved.split(",")]
    changes = (
        log.filter(step__gt=from_step, step__lte=to_step, kind__in=_ACTION_KINDS)
        .order_by("seq")
        .values_list(
            "step",
            "agent",
            "kind",
            KeyTextTransform("action", "payload"),
            KeyTextTransform("emoji", "payload"),
            KeyTextTransform("chatting_with", "payload"),
        )
    )
    # headed and arrived change the action only: emoji and partner stay the acting's.
    emoji_now, partner_now = list(emojis), list(partners)
    for step, agent, kind, action, emoji, partner in changes.iterator(chunk_size=5000):
        i = index.get(agent)
        if i is None:
            continue
        frame = steps[step - from_step - 1]
        if kind == AGENT_ACTING:
            emoji_now[i], partner_now[i] = emoji or "", index.get(partner or "", -1)
        frame.acted.append([i, action or "", emoji_now[i], partner_now[i]])
    return Replay(
        from_step=from_step,
        to_step=to_step,
        last_step=simulation.step,
        residents=residents,
        tiles=tiles,
        actions=actions,
        emojis=emojis,
        partners=partners,
        steps=steps,
    )
