"""`conversation_takeaways`: after a conversation, a memo, a planning thought and maybe a
commitment to be somewhere. Offline: agents/offline/news.py `takeaways` (the news heard,
judged by meaning; a happening one is asked to becomes a commitment)."""

from __future__ import annotations

import random
from pathlib import Path

from pydantic import Field

from agents.offline import news as offline_news
from agents.offline import policy as offline
from agents.tasks.shared import CommitmentOut, Strict
from llm.tasks import Inputs, PromptTask, task_register

TEMPLATE = Path(__file__).with_name("template.txt")
NOTE_MAX = 600  # what stores it has room for; the offline rule clips to it


class Takeaways(Strict):
    memo: str = Field(max_length=NOTE_MAX)
    thought: str = Field(max_length=NOTE_MAX)
    commitment: CommitmentOut | None = None


def _commitment(happening: offline_news.Happening | None) -> CommitmentOut | None:
    if happening is None or happening.day is None:
        return None
    return CommitmentOut(
        what=f"going to the {happening.what}",
        place=happening.place,
        date=happening.day.isoformat(),
        start=offline_news.clock(happening.start),
        end=offline_news.clock(happening.end),
    )


def _takeaways(inputs: Inputs, rng: random.Random) -> Takeaways:
    memo, thought, happening = offline_news.takeaways(inputs, rng)
    return Takeaways(
        memo=offline.clip(memo, NOTE_MAX),
        thought=offline.clip(thought, NOTE_MAX),
        commitment=_commitment(happening),
    )


TAKEAWAYS = task_register(
    PromptTask(
        name="conversation_takeaways",
        template=TEMPLATE,
        output=Takeaways,
        offline=_takeaways,
        description="after a conversation: a memo, a planning thought, maybe a commitment",
    )
)
