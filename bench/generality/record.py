"""What a lived world left, read from its simulation: the log (actions, moves,
conversations, memories, plans, whispers), the interviews and the town's sector tiles.
The measures read this, never the stand-in's code."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from agents.models import Interview
from world.models import Event, Location, LocationKind, Simulation

Tile = tuple[int, int]


@dataclass
class Record:
    """A run's facts, by resident name; steps are the simulation's."""

    start: datetime
    sec_per_step: int
    end_step: int
    width: int
    sectors: dict[int, str] = field(default_factory=dict)  # tile index -> sector name
    acting: dict[str, list[tuple[int, str, str]]] = field(
        default_factory=dict
    )  # (start step, action, address)
    tiles: dict[str, list[tuple[int, Tile]]] = field(
        default_factory=dict
    )  # (step, tile) from that step on
    conversations: list[tuple[int, tuple[str, ...]]] = field(default_factory=list)
    memories: dict[str, list[tuple[int, str]]] = field(default_factory=dict)  # (step, description)
    plans: dict[str, list[tuple[int, str, dict[str, Any]]]] = field(
        default_factory=dict
    )  # (step, kind, payload)
    whispers: list[tuple[int, str, str]] = field(
        default_factory=list
    )  # (step, resident, statement)
    answers: list[tuple[int, str, str, str]] = field(
        default_factory=list
    )  # (step, resident, question, answer)

    def minute(self, step: int) -> int:
        """Minutes after the start at `step`."""
        return step * self.sec_per_step // 60

    def sector_at(self, tile: Tile) -> str:
        return self.sectors.get(tile[1] * self.width + tile[0], "")


def record_read(simulation: Simulation) -> Record:
    simulation.refresh_from_db()
    town = simulation.town
    record = Record(simulation.start_time, simulation.sec_per_step, simulation.step, town.width)
    for name, tiles in Location.objects.filter(town=town, kind=LocationKind.SECTOR).values_list(
        "address", "tiles"
    ):
        for tile in tiles:
            record.sectors[tile] = name.split(":")[1]
    events = Event.objects.filter(simulation=simulation).order_by("seq")
    kinds = (
        "agent.created", "agent.acting", "agent.moved", "conversation.held", "memory.created",
        "plan.made", "plan.revised", "agent.whispered",
    )  # fmt: skip
    for step, kind, agent, payload in (
        events.filter(kind__in=kinds).values_list("step", "kind", "agent", "payload").iterator()
    ):
        if kind in ("agent.created", "agent.moved"):
            x, y = payload["tile"]
            record.tiles.setdefault(agent, []).append((step, (int(x), int(y))))
        elif kind == "agent.acting":
            entry = (int(payload["start_step"]), payload["action"], payload["address"])
            record.acting.setdefault(agent, []).append(entry)
        elif kind == "conversation.held":
            record.conversations.append((step, tuple(payload["participants"])))
        elif kind == "memory.created":
            record.memories.setdefault(agent, []).append((step, payload["description"]))
        elif kind in ("plan.made", "plan.revised"):
            record.plans.setdefault(agent, []).append((step, kind, payload))
        else:
            record.whispers.append((step, agent, payload["statement"]))
    for row in (
        Interview.objects.filter(simulation=simulation).select_related("agent").order_by("number")
    ):
        record.answers.append((row.step, row.agent.name, row.question, row.answer))
    return record
