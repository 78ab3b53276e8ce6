"""Writes on residents and simulations that involve them."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from agents.events import agent_created
from llm.importance import importance_rate
from memories.models import MemoryKind
from memories.services import MemoryDraft, memories_create
from world.eventlog import events_append
from world.events import simulation_created
from world.models import Simulation
from world.towns import town_get_or_import

from .bases import base_load


def simulation_create_from_base(
    *,
    owner: User,
    base: str,
    name: str = "",
    seed: int = 0,
    sec_per_step: int | None = None,
    config: dict[str, Any] | None = None,
    start_time: datetime | None = None,
) -> Simulation:
    """A new simulation of a shipped base; the simulation and its residents are events."""
    loaded = base_load(base)
    with transaction.atomic(durable=True):
        town = town_get_or_import(loaded.town)
        simulation = Simulation.objects.create(
            owner=owner,
            name=name or base,
            town=town,
            base=base,
            start_time=start_time or loaded.start_time,
            sec_per_step=sec_per_step or loaded.sec_per_step,
            seed=seed,
            config=config or {},
        )
        drafts = [
            simulation_created(
                name=simulation.name,
                town=town.name,
                base=base,
                start_time=simulation.start_time.isoformat(),
                sec_per_step=simulation.sec_per_step,
                seed=seed,
                config=simulation.config,
            )
        ]
        drafts += [
            agent_created(agent=persona.name, identity=persona.identity, tile=persona.tile)
            for persona in loaded.personas
        ]
        events_append(simulation=simulation, drafts=drafts, step=0)
    residents_seed_memories(simulation=simulation)
    return simulation


def residents_seed_memories(*, simulation: Simulation) -> int:
    """Each resident's seed statements become its first memories, rated by `importance`.

    Model calls run outside any transaction; the memories are appended in one transaction
    afterwards, so a failed call leaves no partial set. Residents that already have
    memories are skipped, so calling it again finishes an interrupted seeding.
    """
    drafts = [
        MemoryDraft(
            agent=agent.name,
            kind=MemoryKind.THOUGHT,
            description=statement,
            importance=importance_rate(agent=agent, memory=statement, simulation=simulation),
        )
        for agent in simulation.agents.filter(memories__isnull=True).order_by("name")
        for statement in agent.seed_statements
    ]
    memories_create(simulation=simulation, drafts=drafts, step=0)
    return len(drafts)
