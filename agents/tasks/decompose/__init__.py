"""`decompose`: an hour block as 5-15 minute actions at objects of its place. Offline:
agents/offline/actions.py `actions_for` (the objects of the place, by what the block is)."""

from __future__ import annotations

import random
from pathlib import Path

from pydantic import Field

from agents.offline import actions as offline_actions
from agents.tasks.shared import Strict
from llm.tasks import Inputs, PromptTask, task_register

TEMPLATE = Path(__file__).with_name("template.txt")
DECOMPOSITION_MAX = 12


class Action(Strict):
    description: str = Field(min_length=1, max_length=300)
    duration_minutes: int = Field(ge=1, le=60)
    object: str = Field(max_length=300)
    emoji: str = Field(max_length=16)
    triple: list[str] = Field(min_length=3, max_length=3)
    object_state: str = Field(max_length=300)


class Decomposition(Strict):
    actions: list[Action] = Field(min_length=1, max_length=DECOMPOSITION_MAX)


def _decompose(inputs: Inputs, rng: random.Random) -> Decomposition:
    name = str(inputs["agent_name"])
    return Decomposition(
        actions=[
            Action(
                description=d,
                duration_minutes=m,
                object=o,
                emoji=e,
                triple=[name, d.split()[0], o or "room"],
                object_state=s,
            )
            for d, m, o, e, s in offline_actions.actions_for(
                inputs, rng, max_actions=DECOMPOSITION_MAX
            )
        ]
    )


DECOMPOSE = task_register(
    PromptTask(
        name="decompose",
        template=TEMPLATE,
        output=Decomposition,
        offline=_decompose,
        description="an hour block as 5-15 minute actions at objects",
    )
)
