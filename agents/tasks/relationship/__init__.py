"""`relationship`: how one resident stands with another, before reacting and each turn.
Offline: agents/offline/news.py `relationship` (what one remembers of the other)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from agents.offline import news as offline_news
from agents.offline import policy as offline
from agents.tasks.shared import Strict
from llm.tasks import PromptTask, task_register

TEMPLATE = Path(__file__).with_name("template.txt")
RELATIONSHIP_MAX = 500  # what stores it has room for; the offline rule clips to it


class Relationship(Strict):
    summary: str = Field(min_length=1, max_length=RELATIONSHIP_MAX)


RELATIONSHIP = task_register(
    PromptTask(
        name="relationship",
        template=TEMPLATE,
        output=Relationship,
        offline=lambda i, r: Relationship(
            summary=offline.clip(offline_news.relationship(i), RELATIONSHIP_MAX)
        ),
        description="how one resident stands with another, before reacting and each turn",
    )
)
