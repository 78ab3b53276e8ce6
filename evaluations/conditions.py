"""The paper's ablation conditions, applied at interview time to one memory stream."""

from __future__ import annotations

from django.db import models

from memories.models import Memory, MemoryKind
from memories.retrieval import memory_rows
from memories.selectors import memory_retrieval
from world.models import Agent, Simulation


class Condition(models.TextChoices):
    """What the interviewed resident may remember (Park et al. 2023, section 6.1)."""

    FULL = "full"
    NO_REFLECTION = "no_reflection"
    NO_REFLECTION_NO_PLANNING = "no_reflection_no_planning"
    NO_MEMORY = "no_memory"  # no observation, reflection or planning: nothing at all


# The kinds each condition hides from retrieval; None hides the whole stream.
HIDDEN: dict[Condition, tuple[str, ...] | None] = {
    Condition.FULL: (),
    Condition.NO_REFLECTION: (MemoryKind.REFLECTION,),
    Condition.NO_REFLECTION_NO_PLANNING: (MemoryKind.REFLECTION, MemoryKind.PLAN),
    Condition.NO_MEMORY: None,
}


def condition_memories(
    *, simulation: Simulation, agent: Agent, condition: Condition, query: str, k: int
) -> list[Memory]:
    """The memories the agent recalls for `query` under `condition`, best first."""
    hidden = HIDDEN[condition]
    if hidden is None:
        return []
    retrieval = memory_retrieval(
        simulation=simulation, agent=agent, query=query, k=k, exclude_kinds=hidden
    )
    return memory_rows(retrieval.scored)
