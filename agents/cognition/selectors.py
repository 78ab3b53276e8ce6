"""Reads of the database that cognition makes: memories, plan rows, object states, places.

A step decides from the state committed before it, so every read here is plain and
read-only; the town's places do not change during a run and are cached per process.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import cache

from memories.models import Memory, MemoryKind
from world.models import Agent, Location, LocationKind, Simulation

from ..models import ObjectState, PlanItem, PlanLevel

IMPORTANT = 6  # the importance from which a memory is news one passes on


@cache
def town_addresses_cached(*, town_id: int) -> frozenset[str]:
    """Every place of the town: worlds, sectors, arenas and objects."""
    return frozenset(Location.objects.filter(town_id=town_id).values_list("address", flat=True))


@cache
def town_arenas_cached(*, town_id: int) -> frozenset[str]:
    """The town's arenas."""
    rows = Location.objects.filter(town_id=town_id, kind=LocationKind.ARENA)
    return frozenset(rows.values_list("address", flat=True))


def memory_descriptions_get(*, ids: list[int]) -> dict[int, str]:
    """Memory id -> description, for the memories a retrieval scored."""
    return dict(Memory.objects.filter(id__in=ids).values_list("id", "description"))


def memory_important_list(*, agent: Agent, k: int) -> list[str]:
    """The agent's `k` most important memories (newest first among equals), conversations
    aside: what it would tell anyone."""
    rows = (
        Memory.objects.filter(agent=agent, importance__gte=IMPORTANT)
        .exclude(kind=MemoryKind.CONVERSATION)
        .order_by("-importance", "-number")
    )
    return list(rows.values_list("description", flat=True)[:k])


def memory_last_plan_get(*, agent: Agent) -> str | None:
    """The description of the agent's latest day-plan memory, if any."""
    rows = Memory.objects.filter(agent=agent, kind=MemoryKind.PLAN).order_by("-number")
    return rows.values_list("description", flat=True).first()


def plan_block_current(*, agent: Agent, now: datetime) -> PlanItem | None:
    """The agent's latest hour block begun within the last day (it may have ended)."""
    rows = PlanItem.objects.filter(
        agent=agent,
        level=PlanLevel.HOUR,
        superseded=False,
        start__lte=now,
        start__gt=now - timedelta(days=1),
    )
    return rows.order_by("-start", "-number").first()


def plan_actions_list(*, agent: Agent, block_number: int) -> list[PlanItem]:
    """The actions decomposed from the agent's hour block `block_number`, in time order."""
    rows = PlanItem.objects.filter(agent=agent, parent__number=block_number, superseded=False)
    return list(rows.order_by("start", "number"))


def object_setters_get(*, simulation: Simulation) -> dict[str, tuple[str, str]]:
    """Object address -> (state, the resident whose action set it; "" when set by a user)."""
    rows = ObjectState.objects.filter(simulation=simulation)
    return {
        address: (state, by)
        for address, state, by in rows.values_list("address", "state", "by_agent")
    }
