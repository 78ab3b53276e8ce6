"""What a user does to the town as a whole: says something in public at a place (every
resident there perceives it), and sends a resident away (it leaves the town)."""

from __future__ import annotations

from dataclasses import dataclass

from agents.events import agent_left
from agents.tasks.importance import importance_rate
from memories.models import MemoryKind
from memories.services import MemoryDraft, memory_event_drafts
from runtime.controls.common import ControlConflict, append_now, context_now
from runtime.controls.voice import WHISPER_IMPORTANCE
from world.eventlog import EventDraft
from world.models import Agent, Event, Location, LocationKind, Simulation
from world.paths import UnknownAddress, closest_addresses


def place_check(*, simulation: Simulation, address: str) -> None:
    """UnknownAddress (with the closest) unless `address` is a sector or an arena of the town."""
    known = list(
        Location.objects.filter(
            town_id=simulation.town_id, kind__in=[LocationKind.SECTOR, LocationKind.ARENA]
        ).values_list("address", flat=True)
    )
    if address not in known:
        raise UnknownAddress(address, closest_addresses(address, known))


@dataclass(frozen=True)
class Announcement:
    """An announcement's events and who heard it (in name order)."""

    drafts: list[EventDraft]
    listeners: list[str]


def announce_drafts(*, simulation: Simulation, address: str, statement: str) -> Announcement:
    """Everyone present in the place (`address`: a sector or an arena) at the current step
    hears `statement` and keeps it as news: a thought memory (what a resident tells others;
    an observation is only what it saw someone do) of importance at least a whisper's.
    Nobody there: no events and no listeners."""
    place_check(simulation=simulation, address=address)
    context = context_now(simulation)
    listeners = [
        agent
        for name, agent in sorted(context.agents.items())
        if _within(context.arena_at(agent.tile), address)
    ]
    memories = [
        MemoryDraft(
            agent=agent.name,
            kind=MemoryKind.THOUGHT,
            description=statement,
            importance=max(
                WHISPER_IMPORTANCE,
                importance_rate(simulation=simulation, agent=agent, memory=statement),
            ),
        )
        for agent in listeners
    ]
    drafts = memory_event_drafts(simulation=simulation, drafts=memories)
    return Announcement(drafts=drafts, listeners=[agent.name for agent in listeners])


def _within(arena: str, address: str) -> bool:
    return bool(arena) and (arena == address or arena.startswith(f"{address}:"))


def leave_drafts(*, simulation: Simulation, agent: Agent) -> list[EventDraft]:
    """The resident leaves the town at the current step: it no longer decides, is seen or
    talked to; its row, memories and history stay. ControlConflict if it left already."""
    if agent.left_step is not None:
        raise ControlConflict(f"{agent.name} left the town at step {agent.left_step}")
    step = Simulation.objects.values_list("step", flat=True).get(pk=simulation.pk)
    return [agent_left(agent=agent.name, step=step)]


def agent_leave(*, simulation: Simulation, agent: Agent) -> Event:
    """`leave_drafts`, appended now."""
    return append_now(
        simulation=simulation, drafts=leave_drafts(simulation=simulation, agent=agent)
    )[0]
