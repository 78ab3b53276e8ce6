"""Writes on residents and simulations that involve them."""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from agents.bases.selectors import base_resolve
from agents.bases.services import base_loaded
from agents.config import config_normalise
from agents.events import agent_created, scenario_added
from agents.tasks.importance import importance_rate
from llm.quotas import model_quota_check
from memories.models import MemoryKind
from memories.services import MemoryDraft, memories_create
from world.clock import SimTimeOutOfReach, sim_time_check
from world.eventlog import EventDraft, events_append, simulation_fork
from world.events import simulation_created
from world.models import Simulation


def simulation_create_from_base(
    *,
    owner: User,
    base: str | int,
    name: str = "",
    seed: int = 0,
    sec_per_step: int | None = None,
    config: dict[str, Any] | None = None,
    start_time: datetime | None = None,
) -> Simulation:
    """A new simulation of a base (an id, or a name: the owner's or a shipped one); the
    simulation and its residents are events.

    Raises UnknownBase for a base the owner may not use, ConfigInvalid (field-level
    messages) for a config that breaks its schema, and SimulationRefused for a start time
    the clock cannot run from."""
    row = base_resolve(user=owner, base=base)
    loaded, town = base_loaded(base=row)
    config = config_normalise(config)
    model_quota_check(owner_id=owner.pk)  # seeding calls the model: refuse before anything
    start_time = start_time or loaded.start_time
    sec_per_step = sec_per_step or loaded.sec_per_step
    sim_time_check(start=start_time, sec_per_step=sec_per_step)
    with transaction.atomic(durable=True):
        simulation = Simulation.objects.create(
            owner=owner,
            name=name or row.name,
            town=town,
            base=row.name,
            start_time=start_time,
            sec_per_step=sec_per_step,
            seed=seed,
            config=config,
        )
        drafts = [
            simulation_created(
                name=simulation.name,
                town=town.name,
                base=row.name,
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
        drafts += base_scenario_drafts(simulation, loaded.scenarios)
        events_append(simulation=simulation, drafts=drafts, step=0)
    residents_seed_memories(simulation=simulation)
    return simulation


def base_scenario_drafts(
    simulation: Simulation, scenarios: tuple[tuple[str, datetime, dict[str, Any]], ...]
) -> list[EventDraft]:
    """`scenario.added` of each scenario of the base, due at the first step at or after its
    time; SimTimeOutOfReach (a 400 on `start_time`) for one before the simulation starts."""
    drafts = []
    for number, (kind, at, params) in enumerate(scenarios, start=1):
        seconds = (at - simulation.start_time).total_seconds()
        if seconds < 0:
            raise SimTimeOutOfReach(
                f"start_time is after the base's scenario {number} at {at.isoformat()}"
            )
        step = math.ceil(seconds / simulation.sec_per_step)
        drafts.append(scenario_added(number=number, kind=kind, step=step, at=at, params=params))
    return drafts


def simulation_fork_checked(
    *,
    simulation: Simulation,
    step: int,
    name: str = "",
    owner: User | None = None,
    seed: int | None = None,
    config: dict[str, Any] | None = None,
) -> Simulation:
    """`world.eventlog.simulation_fork`, refused (ConfigInvalid) when the parent's config,
    or the fork's own `config`, does not pass the schema. A fork with another `seed` is a
    counterfactual twin: the same past, other draws after the step."""
    config_normalise(simulation.config)
    checked = None if config is None else config_normalise(config)
    return simulation_fork(
        simulation=simulation, step=step, name=name, owner=owner, seed=seed, config=checked
    )


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
