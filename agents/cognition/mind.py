"""The step's state: one agent deciding one step, what it reads, and what it makes.

The parts of the paper's cognition (recall, planning, places, acting, perception,
conversation) are functions of a `Mind`: they read the agent and the `StepContext`, and
add event drafts and notes (memories to make, rated together at the end of the step).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from agents.cognition import StepContext
from agents.cognition.places import KnownPlaces
from llm.inputs import agent_identity
from memories.models import MemoryKind
from world.eventlog import EventDraft
from world.models import Agent, Simulation

if TYPE_CHECKING:
    from agents.cognition.blocks import Block


@dataclass
class Note:
    """A memory to make this step; importance is rated for all of them at once."""

    agent: str
    kind: MemoryKind
    description: str
    spo: tuple[str, str, str] = ("", "", "")
    conversation: str = ""
    source: dict[str, object] = field(default_factory=dict)  # {"from": who told it, ...}


@dataclass(frozen=True)
class Sighting:
    """An object seen in a state a user set (a burning stove): something to respond to."""

    name: str
    state: str
    address: str


@dataclass
class Mind:
    """One agent deciding one step (`paper.run`), or answering a line (`reply_line`)."""

    context: StepContext
    agent: Agent
    out: list[EventDraft] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    touched: dict[str, set[int]] = field(default_factory=dict)  # agent -> memory numbers
    blocks: list[Block] | None = None  # today's hour blocks, when planned this step
    thought: str = ""  # what the inner voice said, for the decomposition
    news: dict[str, list[str]] = field(default_factory=dict)  # agent -> its important memories
    # (agent, other) -> how agent stands with other: asked once a step, since what it reads
    # (the committed memories, the other's action) stays the same all step
    bonds: dict[tuple[str, str], str] = field(default_factory=dict)
    sightings: list[Sighting] = field(default_factory=list)
    summary: str = ""  # the day's summary, when made this step (`identity.summary`)

    @property
    def name(self) -> str:
        return self.agent.name

    @property
    def now(self) -> datetime:
        return self.context.now

    @property
    def step(self) -> int:
        return self.context.step

    @property
    def simulation(self) -> Simulation:
        return self.context.simulation

    @property
    def ablations(self) -> set[str]:
        return set(self.simulation.config.get("ablations", []))

    @property
    def places(self) -> KnownPlaces:
        return KnownPlaces(self.agent, self.context.town)

    @property
    def here(self) -> str:
        """The arena the agent stands in ("" outside any)."""
        return self.context.arena_at(self.agent.tile)

    def emit(self, draft: EventDraft) -> None:
        self.out.append(draft)


def summary_of(mind: Mind, agent: Agent) -> str:
    """How `agent` is described in the prompts of `mind`'s step: the decider by its summary
    made this step, if any; everyone by the summary committed before the step, else by
    its identity. Never by what another resident's decision made this step: that depends
    on which shard or process decides it, and in what order."""
    if agent.pk == mind.agent.pk and mind.summary:
        return mind.summary
    return agent.summary or agent_identity(agent)
