"""`react`: whether a resident who sees another talks to them, waits or carries on.
Offline: agents/offline/talk.py `react` (news to pass on, a relationship, not asleep)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from agents.offline import talk as offline_talk
from agents.tasks.shared import Strict
from llm.tasks import PromptTask, task_register

TEMPLATE = Path(__file__).with_name("template.txt")


class Reaction(Strict):
    reaction: Literal["talk", "wait", "continue"]
    reason: str = Field(max_length=500)


REACT = task_register(
    PromptTask(
        name="react",
        template=TEMPLATE,
        output=Reaction,
        offline=lambda i, r: Reaction(reaction=offline_talk.react(i, r), reason="offline policy"),  # type: ignore[arg-type]
        description="whether to talk, wait or carry on",
    )
)
