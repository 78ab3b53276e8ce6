"""`conversation_summary`: what a conversation was about. Offline:
agents/offline/talk.py `conversation_summary`."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from agents.offline import policy as offline
from agents.offline import talk as offline_talk
from agents.tasks.shared import Strict
from llm.tasks import PromptTask, task_register

TEMPLATE = Path(__file__).with_name("template.txt")
CONVERSATION_SUMMARY_MAX = 1000  # what stores it has room for; the offline rule clips to it


class ConversationSummary(Strict):
    summary: str = Field(min_length=1, max_length=CONVERSATION_SUMMARY_MAX)


CONVERSATION_SUMMARY = task_register(
    PromptTask(
        name="conversation_summary",
        template=TEMPLATE,
        output=ConversationSummary,
        offline=lambda i, r: ConversationSummary(
            summary=offline.clip(offline_talk.conversation_summary(i), CONVERSATION_SUMMARY_MAX)
        ),
        description="what a conversation was about",
    )
)
