"""`intention`: whether a thought (the inner voice's, a whisper's) commits the resident to
a place and a time. Offline: agents/offline/intention.py `intention` (a thought judged an
intention by meaning, its time parsed, its place found in the resident's own tree)."""

from __future__ import annotations

from pathlib import Path

from agents.offline import intention as offline_intention
from agents.offline import policy as offline
from agents.tasks.shared import CommitmentOut, Strict
from llm.tasks import PromptTask, task_register

TEMPLATE = Path(__file__).with_name("template.txt")


class Intention(Strict):
    commitment: CommitmentOut | None = None


def _meant(meant: offline_intention.Meant | None) -> CommitmentOut | None:
    if meant is None:
        return None
    return CommitmentOut(
        what=offline.clip(meant.what, 300),
        place=meant.place,
        date=meant.start.date().isoformat(),
        start=f"{meant.start:%H:%M}",
        end=f"{meant.end:%H:%M}",
    )


INTENTION = task_register(
    PromptTask(
        name="intention",
        template=TEMPLATE,
        output=Intention,
        offline=lambda i, r: Intention(commitment=_meant(offline_intention.intention(i))),
        description="whether a thought commits the resident to a place and time",
    )
)
