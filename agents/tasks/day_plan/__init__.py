"""`day_plan`: the day in broad strokes. Offline: the day read from the identity's own
words (wake, work hours and workplace, meals; agents/offline/policy.py `day_plan`)."""

from __future__ import annotations

import random
from pathlib import Path

from pydantic import Field

from agents.offline import policy as offline
from agents.tasks.shared import PlanEntry, Strict
from llm.tasks import Inputs, PromptTask, task_register

TEMPLATE = Path(__file__).with_name("template.txt")


class DayPlan(Strict):
    items: list[PlanEntry] = Field(min_length=3, max_length=12)


def _day_plan(inputs: Inputs, rng: random.Random) -> DayPlan:
    return DayPlan(
        items=[
            PlanEntry(description=d, start=offline.hhmm(s), duration_minutes=m)
            for d, s, m in offline.day_plan(inputs, rng)
        ]
    )


DAY_PLAN = task_register(
    PromptTask(
        name="day_plan",
        template=TEMPLATE,
        output=DayPlan,
        offline=_day_plan,
        description="the day in broad strokes",
    )
)
