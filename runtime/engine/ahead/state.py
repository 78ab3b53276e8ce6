"""What the engine that runs residents ahead keeps of the committed state between its
rounds (runtime/engine/ahead): residents' rows, their memories awaiting a rating, their
commitments of the day and the memories their plans cite, the town's object states.

A round reads again only what the engine's own commits changed: the rows of the
residents their events name (a projection changes a resident's row only for an event of
its own), the ratings, commitments and plan citations of residents given a memory, a
rating, a commitment or a plan, the object states after an `object.state`. A quiet night
costs no reads.
The log's last seq says whether anything else was written: the engine records the seq
its own commits leave, and a commit that finds another one (a user's event, between
rounds) has everything read again.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, time
from typing import Any

from agents.cognition import StepContext
from agents.cognition.selectors import (
    commitments_ahead_of,
    commitments_of_day_by_agent,
    object_setters_get,
    plan_citations_by_agent,
)
from agents.events import AGENT_COMMITTED, OBJECT_STATE, PLAN_MADE, PLAN_REVISED
from agents.models import Commitment
from memories.events import MEMORY_CREATED, MEMORY_RATED
from memories.selectors import Unrated, memories_unrated
from runtime.engine.ahead.schedule import Resident
from runtime.engine.decide import agents_read
from runtime.models import StagedCommit
from world.models import Agent, Simulation


class CommittedState:
    def __init__(self, simulation: Simulation) -> None:
        self.simulation = simulation
        self.seq = simulation.last_seq
        self._agents: dict[str, Agent] = {}
        self._unrated: dict[str, list[Unrated]] = {}
        self._commitments: dict[tuple[str, datetime], list[Commitment]] = {}
        self._setters: dict[str, tuple[str, str]] | None = None
        self._cited: dict[str, set[int]] = {}

    def reset(self) -> None:
        """Forget everything: read again when next asked."""
        self._agents.clear()
        self._unrated.clear()
        self._commitments.clear()
        self._setters = None
        self._cited.clear()

    def agents(self, names: Iterable[str]) -> dict[str, Agent]:
        """The residents' committed rows, each a copy of its own (what a decision does to
        a row in memory stays out of the next round's reads)."""
        names = list(names)
        missing = [name for name in names if name not in self._agents]
        if missing:
            for agent in agents_read(simulation=self.simulation, names=missing):
                self._agents[agent.name] = agent
        return {name: _copy(self._agents[name]) for name in names}

    def setters(self) -> dict[str, tuple[str, str]]:
        """Object address -> (state, the resident who set it): `object_setters_get`."""
        if self._setters is None:
            self._setters = object_setters_get(simulation=self.simulation)
        return self._setters

    def unrated(self, agents: dict[str, Agent]) -> dict[int, list[Unrated]]:
        """Agent id -> its memories awaiting a rating: `memories_unrated`."""
        todo = [a for name, a in agents.items() if name not in self._unrated]
        if todo:
            found = memories_unrated(agent_ids=[a.pk for a in todo])
            for agent in todo:
                self._unrated[agent.name] = found.get(agent.pk, [])
        return {a.pk: self._unrated[name] for name, a in agents.items() if self._unrated[name]}

    def commitments(
        self, agents: dict[str, Agent], nows: dict[str, datetime]
    ) -> dict[int, list[Commitment]]:
        """Agent id -> its commitments of the day that end after its now:
        `commitments_ahead_by_agent`."""
        days: dict[datetime, list[Agent]] = {}
        for name, agent in agents.items():
            now = nows[name]
            midnight = datetime.combine(now.date(), time.min, tzinfo=now.tzinfo)
            if (name, midnight) not in self._commitments:
                days.setdefault(midnight, []).append(agent)
        for midnight, todo in days.items():
            found = commitments_of_day_by_agent(agent_ids=[a.pk for a in todo], midnight=midnight)
            for agent in todo:
                self._commitments[(agent.name, midnight)] = found[agent.pk]
        ahead: dict[int, list[Commitment]] = {}
        for name, agent in agents.items():
            now = nows[name]
            midnight = datetime.combine(now.date(), time.min, tzinfo=now.tzinfo)
            if chosen := commitments_ahead_of(self._commitments[(name, midnight)], now):
                ahead[agent.pk] = chosen
        return ahead

    def cited(
        self, agents: dict[str, Agent], commitments: dict[int, list[Commitment]]
    ) -> dict[int, set[int]]:
        """Agent id -> the memories its live plan rows cite, for the agents with
        commitments ahead: `plan_citations_by_agent`."""
        committed = {name: a for name, a in agents.items() if commitments.get(a.pk)}
        todo = [a for name, a in committed.items() if name not in self._cited]
        if todo:
            found = plan_citations_by_agent(agent_ids=[a.pk for a in todo])
            for agent in todo:
                self._cited[agent.name] = found.get(agent.pk, set())
        return {a.pk: self._cited[name] for name, a in committed.items()}

    def committed(self, events: Iterable[dict[str, Any]], *, seq_before: int, seq: int) -> None:
        """The engine committed `events` (kind, agent, payload), finding the log at
        `seq_before` and leaving it at `seq`: what they change is read again."""
        if seq_before != self.seq:
            self.reset()  # something else was written to the log meanwhile
        self.seq = seq
        for event in events:
            name = event["agent"]
            self._agents.pop(name, None)
            kind = event["kind"]
            if kind in (MEMORY_CREATED, MEMORY_RATED):
                self._unrated.pop(name, None)
            elif kind == AGENT_COMMITTED:
                for key in [key for key in self._commitments if key[0] == name]:
                    del self._commitments[key]
            elif kind == OBJECT_STATE:
                self._setters = None
            elif kind in (PLAN_MADE, PLAN_REVISED):
                self._cited.pop(name, None)


def _copy(agent: Agent) -> Agent:
    """A copy of the row's instance whose fields can be set apart (its lists and dicts
    are shared: cognition does not change them in place)."""
    return copy.copy(agent)  # Model.__getstate__: its own _state and fields cache


@dataclass(frozen=True)
class KeptReads:
    """One round's reads of the committed state, for every group it starts: the engine's
    side of cognition's `StepReads` (what one group can see, no other group changes
    before its step: the rule)."""

    setters: dict[str, tuple[str, str]]
    commitments: dict[int, list[Commitment]]
    unrated_by_agent: dict[int, list[Unrated]]
    cited_by_agent: dict[int, set[int]]

    def object_setters(self, context: StepContext) -> dict[str, tuple[str, str]]:
        return self.setters

    def commitments_ahead(self, context: StepContext) -> dict[int, list[Commitment]]:
        return self.commitments

    def cited(self, context: StepContext) -> dict[int, set[int]]:
        return self.cited_by_agent

    def unrated(self, context: StepContext) -> dict[int, list[Unrated]]:
        return self.unrated_by_agent


def residents_vision(simulation: Simulation) -> int:
    """The largest vision radius of the simulation's residents (the rule's `vision`)."""
    radii = Agent.present.filter(simulation=simulation).values_list("vision_radius", flat=True)
    return max(radii, default=0)


def residents_load(simulation: Simulation) -> dict[str, Resident]:
    """Each resident's step: one past its last staged commit, else the log's."""
    stepped: dict[str, int] = {}
    staged = StagedCommit.objects.filter(simulation=simulation).values_list("step", "agents")
    for step, names in staged:
        for name in names:
            stepped[name] = max(stepped.get(name, 0), step + 1)
    rows = Agent.present.filter(simulation=simulation).values_list("name", "tile_x", "tile_y")
    return {name: Resident(name, stepped.get(name, simulation.step), (x, y)) for name, x, y in rows}
