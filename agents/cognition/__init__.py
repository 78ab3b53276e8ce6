"""The seam between the tick engine and cognition: one agent, one step, some events.

The engine hands each agent's cognition a read-only `StepContext` (the simulation as it
was committed at step t) and stores the event drafts it returns as the agent's decision.
Cognition never writes: everything it wants to change is an event applied at commit.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

# Not functools': in Python 3.11 it holds one lock for all instances while it computes,
# and many threads read contexts at once (the engine that runs residents ahead).
from django.utils.functional import cached_property

from world.eventlog import EventDraft
from world.models import Agent, Simulation, Town
from world.selectors import arena_addresses

if TYPE_CHECKING:
    from agents.models import Commitment
    from memories.selectors import Unrated


class StepReads(Protocol):
    """What cognition reads of the committed state besides the residents' rows, once for
    all residents of a context. The runtime chooses how: `ReadPerStep` reads the
    database; an engine may answer from what it keeps between steps."""

    def object_setters(self, context: StepContext) -> dict[str, tuple[str, str]]: ...

    def commitments_ahead(self, context: StepContext) -> dict[int, list[Commitment]]: ...

    def cited(self, context: StepContext) -> dict[int, set[int]]: ...

    def unrated(self, context: StepContext) -> dict[int, list[Unrated]]: ...


class ReadPerStep:
    """Each read made from the database when a context first asks for it."""

    def object_setters(self, context: StepContext) -> dict[str, tuple[str, str]]:
        from agents.cognition.selectors import object_setters_get

        return object_setters_get(simulation=context.simulation)

    def commitments_ahead(self, context: StepContext) -> dict[int, list[Commitment]]:
        from agents.cognition.selectors import commitments_ahead_by_agent

        return commitments_ahead_by_agent(nows={a.pk: context.now for a in context.agents.values()})

    def cited(self, context: StepContext) -> dict[int, set[int]]:
        from agents.cognition.selectors import plan_citations_by_agent

        committed = [pk for pk, ahead in context.commitments_ahead.items() if ahead]
        return plan_citations_by_agent(agent_ids=committed)

    def unrated(self, context: StepContext) -> dict[int, list[Unrated]]:
        from memories.selectors import memories_unrated

        return memories_unrated(agent_ids=[a.pk for a in context.agents.values()])


READ_PER_STEP = ReadPerStep()


@dataclass
class StepContext:
    """What every agent may read while deciding step `step` (the state committed at it)."""

    simulation: Simulation
    town: Town
    step: int
    agents: dict[str, Agent]
    # How the reads beyond the residents' rows are made: per step from the database by
    # default; the runtime may keep them between steps (the engine that runs ahead).
    reads: StepReads = field(default_factory=lambda: READ_PER_STEP)

    @property
    def now(self) -> datetime:
        return self.simulation.sim_time_at(self.step)

    @cached_property
    def object_states(self) -> dict[str, str]:
        """Object address -> state, for objects that are not idle."""
        return {address: state for address, (state, _) in self.object_setters.items()}

    @cached_property
    def object_setters(self) -> dict[str, tuple[str, str]]:
        """Object address -> (state, the resident whose action set it; "" when set by a user)."""
        return self.reads.object_setters(self)

    @cached_property
    def commitments_ahead(self) -> dict[int, list[Commitment]]:
        """Agent id -> its commitments of today that end after now (one read for all)."""
        return self.reads.commitments_ahead(self)

    @cached_property
    def cited(self) -> dict[int, set[int]]:
        """Agent id -> the memories its live plan rows cite, for the agents with
        commitments ahead (one read for all)."""
        return self.reads.cited(self)

    @cached_property
    def unrated(self) -> dict[int, list[Unrated]]:
        """Agent id -> its memories awaiting the model's rating (one read for all)."""
        return self.reads.unrated(self)

    @cached_property
    def agents_by_arena(self) -> dict[str, list[Agent]]:
        """Arena address -> the agents in it, so perception looks only at its own arena."""
        found: dict[str, list[Agent]] = {}
        for agent in self.agents.values():
            found.setdefault(self.arena_at(agent.tile), []).append(agent)
        return found

    @cached_property
    def occupants(self) -> dict[str, str]:
        """Object address -> the agent there using it now (not one still on its way)."""
        return {
            a.action_address: a.name
            for a in self.agents.values()
            if a.action_address and a.busy_until_step > self.step and not a.path
        }

    @cached_property
    def arena_by_block(self) -> dict[int, str]:
        if self.town.pk not in _arenas:
            _arenas[self.town.pk] = arena_addresses(town=self.town)
        return _arenas[self.town.pk]

    @cached_property
    def objects_by_arena(self) -> dict[str, list[tuple[int, int, str]]]:
        """Arena address -> its object tiles (x, y, object name), for perception."""
        return objects_by_arena(self.town)

    def arena_at(self, tile: tuple[int, int]) -> str:
        return self.arena_by_block.get(self.town.arena_layer[self.town.tile_index(*tile)], "")

    def rng(self, agent: str) -> random.Random:
        """A generator that depends only on (seed, step, agent): replays draw the same."""
        key = f"{self.simulation.seed}:{self.step}:{agent}".encode()
        return random.Random(int.from_bytes(hashlib.sha256(key).digest()[:8], "big"))


# A town's arenas and object tiles do not change while a process runs: read once per town.
_arenas: dict[int, dict[int, str]] = {}
_object_tiles: dict[int, dict[str, list[tuple[int, int, str]]]] = {}


def objects_by_arena(town: Town) -> dict[str, list[tuple[int, int, str]]]:
    if town.pk not in _object_tiles:
        arenas = arena_addresses(town=town)
        names = {int(row[0]): row[3].strip() for row in town.legends["game_object"]}
        found: dict[str, list[tuple[int, int, str]]] = {}
        for index, block in enumerate(town.game_object_layer):
            if block and block in names:
                arena = arenas.get(town.arena_layer[index], "")
                if arena:
                    x, y = town.tile_xy(index)
                    found.setdefault(arena, []).append((x, y, names[block]))
        _object_tiles[town.pk] = found
    return _object_tiles[town.pk]


class Cognition(Protocol):
    def decide(self, *, context: StepContext, agent: Agent) -> list[EventDraft]: ...


_registry: dict[str, Callable[[], Cognition]] = {}


def cognition_register(name: str, factory: Callable[[], Cognition]) -> None:
    """Make a cognition available to simulations whose config names it."""
    _registry[name] = factory


def _builtin() -> dict[str, Callable[[], Cognition]]:
    from agents.cognition.minimal import MinimalCognition
    from agents.cognition.paper import PaperCognition

    _registry.setdefault("minimal", MinimalCognition)
    _registry.setdefault("paper", PaperCognition)
    return _registry


def cognition_names() -> list[str]:
    """The cognitions a config may name."""
    return sorted(_builtin())


def cognition_for(simulation: Simulation) -> Cognition:
    """The cognition a simulation runs: `config["cognition"]`, minimal by default."""
    _builtin()
    name = simulation.config.get("cognition", "minimal")
    if name not in _registry:
        raise ValueError(f"unknown cognition {name!r}; one of {sorted(_registry)}")
    return _registry[name]()
