"""`interview`: an answer to a user's question, in character, from what the question
retrieves. Offline: agents/offline/interview.py `interview_answer` (the paper's retrieval
with the question as the query; plans answered from the plan at the time asked)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from agents.offline import interview as offline_interview
from agents.offline import policy as offline
from agents.tasks.shared import Strict
from llm.tasks import PromptTask, task_register

TEMPLATE = Path(__file__).with_name("template.txt")
ANSWER_MAX = 2000  # what stores it has room for; the offline rule clips to it


class InterviewAnswer(Strict):
    answer: str = Field(min_length=1, max_length=ANSWER_MAX)


INTERVIEW = task_register(
    PromptTask(
        name="interview",
        template=TEMPLATE,
        output=InterviewAnswer,
        offline=lambda i, r: InterviewAnswer(
            answer=offline.clip(offline_interview.interview_answer(i), ANSWER_MAX)
        ),
        description="an answer to a user's interview question, in character",
    )
)
