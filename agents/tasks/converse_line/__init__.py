"""`converse_line`: the next line of a conversation, and whether it ends it. Offline:
agents/offline/talk.py `converse_line` (what one has to tell, in one's own words)."""

from __future__ import annotations

import random
from pathlib import Path

from pydantic import Field

from agents.offline import policy as offline
from agents.offline import talk as offline_talk
from agents.tasks.shared import Strict
from llm.tasks import Inputs, PromptTask, task_register

TEMPLATE = Path(__file__).with_name("template.txt")
LINE_MAX = 600  # what stores it has room for; the offline rule clips to it


class Line(Strict):
    line: str = Field(min_length=1, max_length=LINE_MAX)
    end: bool


def _line(inputs: Inputs, rng: random.Random) -> Line:
    text, end = offline_talk.converse_line(inputs, rng)
    return Line(line=offline.clip(text, LINE_MAX), end=end)


CONVERSE_LINE = task_register(
    PromptTask(
        name="converse_line",
        template=TEMPLATE,
        output=Line,
        offline=_line,
        description="the next line of a conversation",
    )
)
