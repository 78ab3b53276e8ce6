"""The `importance` task's answer: the paper's 1-10 poignancy of a memory, and the call
that asks for it.

The task itself (its template, `importance.txt`, this schema and its offline rule, which
rates by meaning: agents/offline/judgments.py) is registered by the mind
(agents.cognition.prompts), so this layer calls it by name.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from world.models import Agent, Simulation

from .inputs import agent_identity
from .port import llm_run

TASK = "importance"


class Importance(BaseModel):
    """How poignant a memory is to its agent."""

    model_config = ConfigDict(extra="forbid")

    importance: int = Field(ge=1, le=10, description="1 purely mundane .. 10 extremely poignant")


def importance_rate(*, agent: Agent, memory: str, simulation: Simulation | None = None) -> int:
    """The importance of a new memory of `agent`, through the configured backend (an agent
    not yet created, a newcomer's seed, is not named on the ledger)."""
    result = llm_run(
        task=TASK,
        inputs={
            "agent_name": agent.name,
            "agent_identity": agent_identity(agent),
            "memory": memory,
        },
        simulation=simulation,
        agent=agent if agent.pk else None,
    )
    assert isinstance(result, Importance)
    return result.importance
