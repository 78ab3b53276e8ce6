"""User controls: interview a resident, whisper its inner voice, set object states, step in.

Every control validates first, then calls the models (outside any transaction), then
appends its events in one `events_append` at the simulation's current step, read under the
simulation's row lock. So a control works while the simulation is paused or running (the
append serialises with the tick commit on that row) and changes nothing when it fails.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from django.db import transaction

from llm.importance import importance_rate
from llm.inputs import agent_identity
from llm.port import llm_run
from memories.models import Memory, MemoryKind
from memories.retrieval import memory_rows
from memories.selectors import memory_retrieval
from memories.services import MemoryDraft, memory_event_drafts, memory_touch_drafts
from world.eventlog import EventDraft, events_append
from world.models import Agent, Event, Location, LocationKind, Simulation
from world.paths import (
    NotWalkable,
    UnknownAddress,
    Unreachable,
    closest_addresses,
    location_anchor,
    path_to_location,
    walkable,
)
from world.selectors import town_cached

from .cognition import StepContext
from .cognition.paper import reply_line
from .cognition.prompts import INTERVIEW
from .engine import agents_at_commit, commit_hook_register, decision_stand_still
from .models import Conversation, Interview
from .projections import (
    AGENT_ACTING,
    AGENT_CONTROL,
    AGENT_CREATED,
    AGENT_MOVED,
    AGENT_WHISPERED,
    CONVERSATION_HELD,
    INTERVIEW_ANSWERED,
    OBJECT_STATE,
)

INTERVIEW_MEMORIES = 8  # memories retrieved for each question
WHISPER_IMPORTANCE = 8  # the least importance of an inner-voice thought
NEWCOMER_DEFAULTS = {
    "vision_radius": 8,
    "attention_bandwidth": 8,
    "retention": 8,
    "recency_decay": 0.995,
    "reflection_threshold": 150,
}
IDLE_STATES = ("", "idle")
# A resident's name is also its URL key: it has a letter (all digits would be an id) and
# no slash, colon or backslash.
NAME_PATTERN = re.compile(r"^[^/:\\]*[^\W\d_][^/:\\]*$")


class ControlRefused(ValueError):
    """The control does not apply to this request (a bad name, place or listener)."""


class ControlConflict(ControlRefused):
    """The resident's state does not allow the control now (not user-controlled, busy)."""


# --- shared steps --------------------------------------------------------------------------


def _append_now(
    *,
    simulation: Simulation,
    drafts: Sequence[EventDraft],
    then: Callable[[Simulation], None] | None = None,
) -> list[Event]:
    """Append at the simulation's current step, read under its row lock: a tick may have
    committed since the caller loaded the simulation. `then` runs under the same lock."""
    with transaction.atomic():
        current = Simulation.objects.select_for_update().get(pk=simulation.pk)
        events = events_append(simulation=current, drafts=drafts)
        if then is not None:
            then(current)
    simulation.step, simulation.last_seq = current.step, current.last_seq
    return events


def _context(simulation: Simulation) -> StepContext:
    """What cognition would read at the simulation's current step."""
    simulation.refresh_from_db()
    return StepContext(
        simulation=simulation,
        town=town_cached(pk=simulation.town_id),
        step=simulation.step,
        agents={a.name: a for a in Agent.objects.filter(simulation=simulation)},
    )


def _refresh(agent: Agent) -> Agent:
    return Agent.objects.get(pk=agent.pk)


def _place_words(address: str) -> str:
    """'the Ville:Hobbs Cafe:cafe' -> 'cafe of Hobbs Cafe'; a sector stays its name."""
    parts = address.split(":")
    if len(parts) <= 2:
        return parts[-1]
    return f"{parts[-1]} of {parts[1]}"


# --- interview -----------------------------------------------------------------------------


def agent_interview(
    *,
    simulation: Simulation,
    agent: Agent,
    persona: str,
    question: str,
    session: str | None = None,
    remember: bool = False,
) -> Interview:
    """Ask the agent a question as `persona`; it answers from its memories and summary.

    The turns of one `session` (a new one when None) make the dialogue of the next. With
    `remember` the exchange also becomes a conversation memory of the agent. Retrieval
    touches the memories it returns, as when the agent recalls them itself.
    """
    session = session or uuid.uuid4().hex
    turns = Interview.objects.filter(simulation=simulation, agent=agent, session=session)
    dialogue: list[str] = []
    for turn in turns.order_by("number"):
        dialogue += [f"{turn.persona}: {turn.question}", f"{agent.name}: {turn.answer}"]
    retrieval = memory_retrieval(
        simulation=simulation, agent=agent, query=question, k=INTERVIEW_MEMORIES
    )
    memories = [m.description for m in memory_rows(retrieval.scored)]
    answer = llm_run(
        task=INTERVIEW,
        inputs={
            "agent_name": agent.name,
            "summary": agent.summary or agent_identity(agent),
            "time": retrieval.now.strftime("%B %d, %Y, %H:%M"),
            "persona": persona,
            "memories": [f"{i}. {m}" for i, m in enumerate(memories, 1)] or ["none"],
            "dialogue": dialogue or ["(nothing yet)"],
            "question": question,
        },
        simulation=simulation,
        agent=agent,
    ).answer
    drafts = [
        EventDraft(
            kind=INTERVIEW_ANSWERED,
            agent=agent.name,
            payload={
                "session": session,
                "persona": persona,
                "question": question,
                "answer": answer,
                "remembered": remember,
            },
        ),
        *memory_touch_drafts(
            agent=agent.name, numbers=[s.number for s in retrieval.scored], at=retrieval.now
        ),
    ]
    if remember:
        description = f'{persona} asked {agent.name}: "{question}" {agent.name} said: "{answer}"'
        importance = importance_rate(simulation=simulation, agent=agent, memory=description)
        drafts += memory_event_drafts(
            simulation=simulation,
            drafts=[
                MemoryDraft(
                    agent=agent.name,
                    kind=MemoryKind.CONVERSATION,
                    description=description,
                    importance=importance,
                    subject=agent.name,
                    predicate="was interviewed by",
                    object=persona,
                )
            ],
        )
    with transaction.atomic():  # the newest interview is ours while the lock is held
        _append_now(simulation=simulation, drafts=drafts)
        return Interview.objects.filter(simulation=simulation).latest("number")


# --- the inner voice -----------------------------------------------------------------------


def agent_whisper(*, simulation: Simulation, agent: Agent, statement: str) -> Event:
    """The agent takes `statement` as its own thought: a thought memory of importance at
    least WHISPER_IMPORTANCE, acted on (a re-plan) at its next step."""
    rated = importance_rate(simulation=simulation, agent=agent, memory=statement)
    memory = MemoryDraft(
        agent=agent.name,
        kind=MemoryKind.THOUGHT,
        description=statement,
        importance=max(WHISPER_IMPORTANCE, rated),
    )
    drafts = [
        *memory_event_drafts(simulation=simulation, drafts=[memory]),
        EventDraft(kind=AGENT_WHISPERED, agent=agent.name, payload={"statement": statement}),
    ]
    return _append_now(simulation=simulation, drafts=drafts)[-1]


def whisper_memory(*, event: Event) -> Memory | None:
    """The thought memory a whisper made (the newest of that text at its sim time)."""
    return (
        Memory.objects.filter(
            simulation_id=event.simulation_id,
            agent__name=event.agent,
            kind=MemoryKind.THOUGHT,
            created=event.sim_time,
            description=event.payload["statement"],
        )
        .order_by("-number")
        .first()
    )


# --- changing the world --------------------------------------------------------------------


def object_addresses(*, simulation: Simulation) -> list[str]:
    return list(
        Location.objects.filter(town_id=simulation.town_id, kind=LocationKind.OBJECT)
        .order_by("address")
        .values_list("address", flat=True)
    )


def object_state_set(*, simulation: Simulation, address: str, state: str) -> Event:
    """Set a game object's state in words ("burning"); "idle" clears it. Residents who
    perceive the object react at their next steps. Raises UnknownAddress (with the
    closest object addresses) when no object of the town has this address."""
    known = object_addresses(simulation=simulation)
    if address not in known:
        raise UnknownAddress(address, closest_addresses(address, known))
    state = state.strip()
    draft = EventDraft(
        kind=OBJECT_STATE,
        payload={"address": address, "state": "idle" if state in IDLE_STATES else state},
    )
    return _append_now(simulation=simulation, drafts=[draft])[0]


# --- stepping in ---------------------------------------------------------------------------


def _stand_still(agent: Agent, step: int, address: str) -> EventDraft:
    """The agent stops where it is, doing nothing in particular (others see it idle)."""
    return EventDraft(
        kind=AGENT_ACTING,
        agent=agent.name,
        payload={
            "action": "",
            "emoji": "",
            "address": address,
            "spo": [],
            "start_step": step,
            "end_step": step,
            "path": [],
        },
    )


def agent_take_control(
    *, simulation: Simulation, agent: Agent, user_controlled: bool = True
) -> Agent:
    """A user takes control of the agent (it stops and waits for `agent_go`/`agent_say`),
    or gives it back (it resumes its plan at its next step). No change, no event."""
    if agent.user_controlled == user_controlled:
        return agent
    context = _context(simulation)
    drafts = [
        EventDraft(
            kind=AGENT_CONTROL, agent=agent.name, payload={"user_controlled": user_controlled}
        ),
        _stand_still(agent, context.step, context.arena_at(agent.tile)),
    ]
    _append_now(simulation=simulation, drafts=drafts)
    return _refresh(agent)


@dataclass(frozen=True)
class Identity:
    """Who a newcomer is: the fields of the paper's identity description."""

    first_name: str = ""
    last_name: str = ""
    age: int | None = None
    innate: str = ""
    learned: str = ""
    currently: str = ""
    lifestyle: str = ""
    living_area: str = ""
    daily_plan_requirement: str = ""


def _spatial_memory(simulation: Simulation, only_arena: str = "") -> dict[str, object]:
    """{world: {sector: {arena: [objects]}}} for every arena of the town, or one."""
    places: dict[str, dict[str, dict[str, list[str]]]] = {}
    rows = Location.objects.filter(
        town_id=simulation.town_id, kind__in=[LocationKind.ARENA, LocationKind.OBJECT]
    ).values_list("address", flat=True)
    for address in sorted(rows):
        parts = address.split(":")
        arena = ":".join(parts[:3])
        if only_arena and arena != only_arena:
            continue
        world, sector, name = parts[:3]
        objects = places.setdefault(world, {}).setdefault(sector, {}).setdefault(name, [])
        if len(parts) == 4:
            objects.append(parts[3])
    return dict(places)


def newcomer_create(
    *,
    simulation: Simulation,
    name: str,
    identity: Identity | None = None,
    address: str | None = None,
    tile: tuple[int, int] | None = None,
    knows_town: bool = True,
    memories: Sequence[str] = (),
) -> Agent:
    """A user-controlled newcomer at a place (`address`) or a walkable `tile`.

    It knows every arena of the town, or with `knows_town=False` only the one it starts
    in; `memories` become its first thoughts. Raises ControlRefused for a taken or
    invalid name or tile, UnknownAddress or Unreachable for a bad place.
    """
    identity = identity or Identity()
    name = name.strip()
    if not NAME_PATTERN.match(name) or len(name) > 200:
        raise ControlRefused(f"{name!r} cannot be a name: it needs a letter, and no / : \\")
    if Agent.objects.filter(simulation=simulation, name=name).exists():
        raise ControlRefused(f"{name!r} already lives in this simulation")
    town = town_cached(pk=simulation.town_id)
    if address is not None:
        start = location_anchor(town=town, address=address)
    elif tile is not None and walkable(town=town, tile=tile):
        start = tile
    else:
        raise ControlRefused(f"tile {tile} is not a walkable tile of the town")
    if (
        identity.living_area
        and not Location.objects.filter(
            town_id=simulation.town_id, address=identity.living_area
        ).exists()
    ):
        known = Location.objects.filter(town_id=simulation.town_id, kind=LocationKind.ARENA)
        raise UnknownAddress(
            identity.living_area,
            closest_addresses(identity.living_area, known.values_list("address", flat=True)),
        )
    first, _, last = name.partition(" ")
    context = _context(simulation)
    here = context.arena_at(start)
    fields = {
        **NEWCOMER_DEFAULTS,
        **vars(identity),
        "first_name": identity.first_name or first,
        "last_name": identity.last_name or last,
        "spatial_memory": _spatial_memory(simulation, "" if knows_town else here),
        "seed_statements": list(memories),
        "user_controlled": True,
    }
    newcomer = Agent(simulation=simulation, name=name, tile_x=start[0], tile_y=start[1], **fields)
    drafts = [
        EventDraft(kind=AGENT_CREATED, agent=name, payload={**fields, "tile": list(start)}),
        _stand_still(newcomer, context.step, here),
        *memory_event_drafts(
            simulation=simulation,
            drafts=[
                MemoryDraft(
                    agent=name,
                    kind=MemoryKind.THOUGHT,
                    description=statement,
                    importance=importance_rate(
                        simulation=simulation, agent=newcomer, memory=statement
                    ),
                )
                for statement in memories
            ],
        ),
    ]
    _append_now(
        simulation=simulation,
        drafts=drafts,
        then=lambda current: decision_stand_still(simulation=current, agent=name),
    )
    return Agent.objects.get(simulation=simulation, name=name)


def _user_controlled(agent: Agent) -> None:
    if not agent.user_controlled:
        raise ControlConflict(
            f"{agent.name} is not user-controlled; take control of it first (POST control)"
        )


def agent_go(*, simulation: Simulation, agent: Agent, address: str, action: str = "") -> Agent:
    """Send a user-controlled agent to a place; it walks a tile a step along the shortest
    path. `action` is what it will be doing (default: walking there). Raises
    ControlConflict, UnknownAddress (with suggestions) or Unreachable."""
    _user_controlled(agent)
    town = town_cached(pk=simulation.town_id)
    try:
        path = path_to_location(town=town, start=agent.tile, address=address)
    except NotWalkable as exc:
        raise ControlRefused(f"{agent.name} stands on a tile it cannot walk from: {exc}") from exc
    place = _place_words(address)
    step = Simulation.objects.values_list("step", flat=True).get(pk=simulation.pk)
    draft = EventDraft(
        kind=AGENT_ACTING,
        agent=agent.name,
        payload={
            "action": action or f"walking to the {place}",
            "emoji": "🚶",
            "address": address,
            "spo": [agent.name, "goes to", place],
            "start_step": step,
            "end_step": step + len(path) - 1,
            "path": [list(t) for t in path[1:]],
        },
    )
    _append_now(simulation=simulation, drafts=[draft])
    return _refresh(agent)


def agent_say(
    *, simulation: Simulation, speaker: Agent, listener: Agent, text: str
) -> Conversation:
    """A user-controlled agent says `text` to a resident in sight (within its vision
    radius, in the same arena); the resident answers with one line, and both remember
    the exchange as a conversation. Raises ControlConflict or ControlRefused."""
    _user_controlled(speaker)
    if speaker.pk == listener.pk:
        raise ControlRefused(f"{speaker.name} cannot talk to itself")
    context = _context(simulation)
    speaker, listener = context.agents[speaker.name], context.agents[listener.name]
    here = context.arena_at(speaker.tile)
    distance = max(abs(listener.tile_x - speaker.tile_x), abs(listener.tile_y - speaker.tile_y))
    if not here or context.arena_at(listener.tile) != here or distance > speaker.vision_radius:
        raise ControlRefused(
            f"{listener.name} is not in sight of {speaker.name}: they must be in the same "
            f"arena within {speaker.vision_radius} tiles"
        )
    if "sleep" in listener.action.lower():
        raise ControlConflict(f"{listener.name} is asleep")
    lines = [{"speaker": speaker.name, "text": text}]
    reply, touches = reply_line(context=context, speaker=listener, listener=speaker, lines=lines)
    lines.append({"speaker": listener.name, "text": reply})
    record = f'{speaker.name} said to {listener.name}: "{text}" {listener.name} said: "{reply}"'
    memories = [
        MemoryDraft(
            agent=me.name,
            kind=MemoryKind.CONVERSATION,
            description=record,
            importance=importance_rate(simulation=simulation, agent=me, memory=record),
            subject=me.name,
            predicate="talked with",
            object=partner.name,
        )
        for me, partner in ((speaker, listener), (listener, speaker))
    ]
    drafts = [
        EventDraft(
            kind=CONVERSATION_HELD,
            agent=speaker.name,
            payload={
                "participants": [speaker.name, listener.name],
                "lines": lines,
                "summary": record,
                "address": here,
            },
        ),
        *touches,
        *memory_event_drafts(simulation=simulation, drafts=memories),
    ]
    with transaction.atomic():  # the newest conversation is ours while the lock is held
        _append_now(simulation=simulation, drafts=drafts)
        return Conversation.objects.filter(simulation=simulation).latest("number")


def drop_stale_actions(
    simulation: Simulation, step: int, drafts: list[EventDraft]
) -> list[EventDraft]:
    """A commit hook: a resident a user took control of while its step was being decided
    keeps still. Its cognition, deciding as if it were not controlled, may have started a
    walk (`agent.acting`); a user-controlled resident's own decisions never do, and the
    actions others' conversations give it carry a `conversation` tag."""
    actors = {d.agent for d in drafts if d.kind == AGENT_ACTING and "conversation" not in d.payload}
    if not actors:
        return drafts
    agents = agents_at_commit(simulation)
    controlled = {name for name in actors if name in agents and agents[name].user_controlled}
    return [
        d
        for d in drafts
        if not (
            d.agent in controlled and d.kind == AGENT_ACTING and "conversation" not in d.payload
        )
    ]


commit_hook_register(drop_stale_actions)


def drop_stale_moves(
    simulation: Simulation, step: int, drafts: list[EventDraft]
) -> list[EventDraft]:
    """A commit hook: a user-controlled agent sent somewhere else (`go`) while its step was
    being decided keeps still this step. The step's move followed the old path; applied
    after the new one, it would put the agent off that path, two tiles from its next."""
    controlled = [a.name for a in agents_at_commit(simulation).values() if a.user_controlled]
    if not controlled:
        return drafts
    paths = dict(
        Agent.objects.filter(simulation=simulation, name__in=controlled).values_list("name", "path")
    )
    return [
        d
        for d in drafts
        if not (
            d.kind == AGENT_MOVED
            and d.agent in paths
            and (not paths[d.agent] or list(paths[d.agent][0]) != list(d.payload["tile"]))
        )
    ]


commit_hook_register(drop_stale_moves)


__all__ = [
    "ControlConflict",
    "ControlRefused",
    "Identity",
    "NotWalkable",
    "UnknownAddress",
    "Unreachable",
    "agent_go",
    "agent_interview",
    "agent_say",
    "agent_take_control",
    "agent_whisper",
    "newcomer_create",
    "object_state_set",
]
