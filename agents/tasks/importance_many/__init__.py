"""`importance_many`: the poignancy of the memories an agent makes in one step, in one
call. Offline: each rated as `importance` rates it (agents/offline/judgments.py)."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Annotated

from pydantic import Field, field_validator

from agents.offline import judgments as offline_judgments
from agents.offline import policy as offline
from agents.tasks.shared import Strict
from llm.tasks import Inputs, PromptTask, task_register

TEMPLATE = Path(__file__).with_name("template.txt")


class ImportanceMany(Strict):
    importance: list[Annotated[int, Field(ge=1, le=10)]] = Field(min_length=1, max_length=50)

    @field_validator("importance")
    @classmethod
    def _range(cls, values: list[int]) -> list[int]:
        if any(not 1 <= v <= 10 for v in values):
            raise ValueError("every importance must be 1..10")
        return values


def _importance_many(inputs: Inputs, rng: random.Random) -> ImportanceMany:
    numbered = [re.sub(r"^\d+\.\s*", "", m) for m in offline.lines_of(inputs["memories"])]
    memories = [m for m in numbered if m.strip()]
    return ImportanceMany(importance=offline_judgments.importances(memories))


IMPORTANCE_MANY = task_register(
    PromptTask(
        name="importance_many",
        template=TEMPLATE,
        output=ImportanceMany,
        offline=_importance_many,
        description="the poignancy of the memories an agent makes in one step",
    )
)
