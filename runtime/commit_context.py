"""What the commit rules of a tick read: the step, and the agents as committed before it.

A commit rule (`runtime.rules.COMMIT_RULES`) takes a `CommitContext` and the step's
drafts and returns the drafts to append. `NotReady` from a rule means work the commit
needs (a reflection job) is not done: the commit is tried again soon.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from django.db import connection

from world.eventlog import EventDraft
from world.models import Agent, Simulation


class NotReady(Exception):
    """A commit rule's work for this step is not done yet: the commit is tried again soon."""


@dataclass(frozen=True)
class CommittedAgent:
    """An agent's committed state, as the commit rules read it."""

    name: str
    user_controlled: bool
    busy_until_step: int
    action_address: str
    importance_since_reflection: int
    reflection_threshold: int
    reflection_due_step: int | None
    tile_x: int
    tile_y: int


_FIELDS = [f.name for f in dataclasses.fields(CommittedAgent)]
# Read for every commit: fixed statements, not a query built each time.
_ALL_SQL = (
    f"SELECT {', '.join(_FIELDS)} FROM {Agent._meta.db_table} "
    "WHERE simulation_id = %s AND left_step IS NULL ORDER BY name"
)
_NAMED_SQL = (
    f"SELECT {', '.join(_FIELDS)} FROM {Agent._meta.db_table} "
    "WHERE simulation_id = %s AND name = ANY(%s) ORDER BY name"
)


def committed_agents(
    *, simulation: Simulation, names: list[str] | None = None
) -> dict[str, CommittedAgent]:
    """Every agent of `simulation` (or the named ones) in name order, as committed."""
    with connection.cursor() as cursor:
        if names is None:
            cursor.execute(_ALL_SQL, [simulation.pk])
        else:
            cursor.execute(_NAMED_SQL, [simulation.pk, list(names)])
        rows = cursor.fetchall()
    return {values[0]: CommittedAgent(*values) for values in rows}


class CommitContext:
    """The commit of step `step` (its events are appended at step + 1) of `simulation`,
    read under the simulation's row lock; the agents are read once, when first asked."""

    def __init__(
        self,
        simulation: Simulation,
        step: int,
        agents: dict[str, CommittedAgent] | None = None,
    ) -> None:
        self.simulation = simulation
        self.step = step
        self._agents = agents

    @property
    def agents(self) -> dict[str, CommittedAgent]:
        if self._agents is None:
            self._agents = committed_agents(simulation=self.simulation)
        return self._agents


CommitRule = Callable[[CommitContext, list[EventDraft]], list[EventDraft]]
