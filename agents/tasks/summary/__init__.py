"""`summary`: the agent's summary description, once a sim day. Offline: its identity's
lines as they stand (agents/offline/policy.py `summary_text`)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from agents.offline import policy as offline
from agents.tasks.shared import Strict
from llm.tasks import PromptTask, task_register

TEMPLATE = Path(__file__).with_name("template.txt")
SUMMARY_MAX = 2000  # what stores it has room for; the offline rule clips to it


class Summary(Strict):
    summary: str = Field(min_length=1, max_length=SUMMARY_MAX)


SUMMARY = task_register(
    PromptTask(
        name="summary",
        template=TEMPLATE,
        output=Summary,
        offline=lambda i, r: Summary(summary=offline.clip(offline.summary_text(i), SUMMARY_MAX)),
        description="the agent's summary description, once a sim day",
    )
)
