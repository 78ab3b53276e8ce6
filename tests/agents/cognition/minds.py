"""A `Mind` for one resident's step without the engine: the committed state it reads
(`StepReads`) given by the test, so cognition's parts run without the database."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from agents.cognition import StepContext
from agents.cognition.mind import Mind
from memories.selectors import Unrated
from world.models import Agent, Simulation, Town

MORNING = datetime(2024, 5, 6, 8, 0, tzinfo=UTC)


class GivenReads:
    """The committed state a step reads, as the test says it is."""

    def __init__(
        self,
        setters: dict[str, tuple[str, str]] | None = None,
        unrated: dict[int, list[Unrated]] | None = None,
    ) -> None:
        self.setters = setters or {}
        self._unrated = unrated or {}

    def object_setters(self, context: StepContext) -> dict[str, tuple[str, str]]:
        return self.setters

    def commitments_ahead(self, context: StepContext) -> dict[int, list[Any]]:
        return {}

    def cited(self, context: StepContext) -> dict[int, set[int]]:
        return {}

    def unrated(self, context: StepContext) -> dict[int, list[Unrated]]:
        return self._unrated


def mind_of(
    agent: Agent,
    *,
    simulation: Simulation | None = None,
    town: Town | None = None,
    step: int = 10,
    setters: dict[str, tuple[str, str]] | None = None,
    unrated: list[Unrated] | None = None,
) -> Mind:
    """`agent` deciding `step` (by default of an unsaved run of 10-second steps from
    MORNING, in a town of the agent's first world)."""
    world = next(iter(agent.spatial_memory or {}), "Elmwood")
    context = StepContext(
        simulation=simulation or Simulation(start_time=MORNING, sec_per_step=10, config={}),
        town=town or Town(world_name=world),
        step=step,
        agents={agent.name: agent},
        reads=GivenReads(setters, {agent.pk: unrated} if unrated else None),
    )
    return Mind(context, agent)
