"""`importance`: the paper's 1-10 poignancy of a memory, and the call that asks for it.
Offline: the nearest graded example statements' weighted mean (agents/offline/judgments.py)."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from agents.offline import judgments as offline_judgments
from llm.inputs import agent_identity
from llm.port import llm_run
from llm.tasks import PromptTask, task_register
from world.models import Agent, Simulation

TEMPLATE = Path(__file__).with_name("template.txt")


class Importance(BaseModel):
    """How poignant a memory is to its agent."""

    model_config = ConfigDict(extra="forbid")

    importance: int = Field(ge=1, le=10, description="1 purely mundane .. 10 extremely poignant")


IMPORTANCE = task_register(
    PromptTask(
        name="importance",
        template=TEMPLATE,
        output=Importance,
        offline=lambda i, r: Importance(importance=offline_judgments.importance(str(i["memory"]))),
        description="the poignancy of a memory, 1 (mundane) to 10 (life-changing)",
    )
)


def importance_rate(*, agent: Agent, memory: str, simulation: Simulation | None = None) -> int:
    """The importance of a new memory of `agent`, through the configured backend (an agent
    not yet created, a newcomer's seed, is not named on the ledger)."""
    result = llm_run(
        task=IMPORTANCE.name,
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
