"""Perception: what the agent newly sees near it, the places it learns, and its response
to an alarming object or to another resident (talk, wait or carry on)."""

from __future__ import annotations

from datetime import timedelta

from agents.cognition.acting import start_action
from agents.cognition.blocks import Block
from agents.cognition.conversation import ANYONE, converse, greet
from agents.cognition.identity import summary
from agents.cognition.mind import Mind, Note, Sighting
from agents.cognition.news import recalled_about
from agents.cognition.places import sector_arena
from agents.cognition.planning import NextAction, current_block
from agents.events import IDLE, agent_learned, agent_perceived, is_idle, plan_revised
from agents.sleep import is_sleeping
from agents.tasks.react import REACT
from agents.tasks.respond_event import RESPOND_EVENT
from llm.port import llm_run
from memories.models import MemoryKind
from world.addresses import Address
from world.models import Agent

RESPONSE_MINUTES = 5  # dealing with an object (putting out a fire), then the plan again
WAIT_MINUTES = 2  # waiting for someone to finish


def is_free(agent: Agent, *, step: int) -> bool:
    """Awake and not in a conversation."""
    chatting = agent.chatting_with and agent.busy_until_step > step
    return not chatting and not is_sleeping(agent.action)


def perceive(mind: Mind) -> list[Agent]:
    """New events within the vision radius in the same arena, nearest first, up to the
    attention bandwidth; what is among the last `retention` observations is skipped.
    Returns the residents newly seen."""
    agent, context = mind.agent, mind.context
    here = mind.here
    if not here:
        return []
    radius = agent.vision_radius
    near: list[tuple[int, str, str, Agent | None]] = []
    seen_objects: set[str] = set()
    for x, y, name in context.objects_by_arena.get(here, []):
        if max(abs(x - agent.tile_x), abs(y - agent.tile_y)) <= radius:
            seen_objects.add(name)
            address = f"{here}:{name}"
            state = context.object_states.get(address, "")
            if not is_idle(state):
                d = (x - agent.tile_x) ** 2 + (y - agent.tile_y) ** 2
                near.append((d, f"{name} is {state}", name, None))
                if not context.object_setters[address][1]:
                    # Not the doing of a resident's own action ("in use"), but changed in
                    # words by a user (a fire): something to respond to.
                    mind.sightings.append(Sighting(name, state, address))
    for other in context.agents_by_arena.get(here, []):
        if other.name == agent.name:
            continue
        dx, dy = other.tile_x - agent.tile_x, other.tile_y - agent.tile_y
        if max(abs(dx), abs(dy)) <= radius:  # agents_by_arena: all in `here`
            doing = other.action or "idle"
            near.append((dx * dx + dy * dy, f"{other.name} is {doing}", other.name, other))
    near.sort(key=lambda n: (n[0], n[1]))
    attended: list[tuple[str, str, Agent | None]] = []
    for _, text, subject, who in near:
        if text not in [a[0] for a in attended]:
            attended.append((text, subject, who))
    # A resident's status is news unless among the latest distinct observations (a crowd
    # must not make it news again each step); an object's state unless among the last
    # `retention` (the reference rule), so a stove on fire again is news.
    people = set(agent.recent_observations)
    objects = set(agent.recent_observations[-agent.retention :] if agent.retention else [])
    new = [
        a
        for a in attended[: agent.attention_bandwidth]
        if a[0] not in (people if a[2] is not None else objects)
    ]
    if new:
        mind.emit(agent_perceived(agent=mind.name, observations=[text for text, _, _ in new]))
        for text, subject, _ in new:
            rest = text[len(subject) + 4 :]  # after "<subject> is "
            mind.notes.append(Note(mind.name, MemoryKind.OBSERVATION, text, (subject, "is", rest)))
    learn(mind, here, seen_objects)
    fresh = {text for text, _, _ in new}
    mind.sightings = [s for s in mind.sightings if f"{s.name} is {s.state}" in fresh]
    return [who for _, _, who in new if who is not None]


def learn(mind: Mind, here: str, objects: set[str]) -> None:
    """Agents learn the places they see: the arena they stand in and its objects."""
    place = Address.parse(here)
    if not place.arena or place.is_object:
        return
    arenas = mind.places.known().get(place.sector, {})
    known = set(arenas.get(place.arena, []))
    if place.arena not in arenas or objects - known:
        learned = sorted(objects - known)
        mind.emit(
            agent_learned(agent=mind.name, sector=place.sector, arena=place.arena, objects=learned)
        )


def respond_to_objects(mind: Mind) -> bool:
    """Deal with something newly seen happening to an object (a burning stove)."""
    for sighting in mind.sightings:
        holder = mind.context.occupants.get(sighting.address)
        if holder and holder != mind.name:
            continue  # someone is using it: that is what it is doing
        response = llm_run(
            task=RESPOND_EVENT,
            inputs={
                "agent_name": mind.name,
                "summary": summary(mind),
                "time": mind.now.strftime("%H:%M"),
                "action": mind.agent.action or "idle",
                "object": sighting.name,
                "state": sighting.state,
            },
            simulation=mind.simulation,
            agent=mind.agent,
        )
        if not response.respond:
            continue
        sector, arena = sector_arena(mind.here)
        block = Block(response.action, mind.now, RESPONSE_MINUTES, sector, arena)
        mind.emit(plan_revised(agent=mind.name, since=mind.now.isoformat()))
        action = NextAction(
            response.action,
            mind.now + timedelta(minutes=RESPONSE_MINUTES),
            sighting.address,
            response.emoji or "❗",
            [mind.name, response.action.split()[0], sighting.name],
            response.state_after or IDLE,
        )
        start_action(mind, block, action)
        return True
    return False


def react(mind: Mind, other: Agent) -> bool:
    """Whether to talk to a resident newly seen, wait for it, or carry on (the paper's
    reaction, from what the agent retrieves about the other)."""
    if not is_free(other, step=mind.step):
        return False
    if mind.agent.chat_cooldowns.get(other.name, 0) > mind.step:
        return False
    if max(a.chat_cooldowns.get(ANYONE, 0) for a in (mind.agent, other)) > mind.step:
        return False  # one of them has just talked
    name = mind.name
    # What it recalls of the other goes into the reaction as it is, as in the reference
    # (no summary call first: one call fewer on the step's path).
    recalled = recalled_about(mind, mind.agent, other)
    reaction = llm_run(
        task=REACT,
        inputs={
            "agent_name": name,
            "summary": summary(mind),
            "time": mind.now.strftime("%B %d, %Y, %H:%M"),
            "action": mind.agent.action or "idle",
            "observed_name": other.name,
            "observed_action": other.action or "idle",
            "context": recalled,
        },
        simulation=mind.simulation,
        agent=mind.agent,
    ).reaction
    if reaction == "talk":
        # A person's lines are theirs to type: a resident only speaks first to them.
        (greet if other.user_controlled else converse)(mind, other)
        return True
    if reaction == "wait":
        block = current_block(mind)
        if block is not None:
            waiting = NextAction(
                f"waiting for {other.name} to finish",
                mind.now + timedelta(minutes=WAIT_MINUTES),
                mind.here or mind.agent.living_area,
                "⏳",
                [name, "waits for", other.name],
                "",
            )
            start_action(mind, block, waiting)
            return True
    return False
