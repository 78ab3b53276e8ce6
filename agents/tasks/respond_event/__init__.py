"""`respond_event`: whether and how to deal with something happening to an object.
Offline: agents/offline/actions.py `respond_to` (a state that wants dealing with)."""

from __future__ import annotations

import random
from pathlib import Path

from pydantic import Field

from agents.offline import actions as offline_actions
from agents.tasks.shared import Strict
from llm.tasks import Inputs, PromptTask, task_register

TEMPLATE = Path(__file__).with_name("template.txt")


class Response(Strict):
    respond: bool
    action: str = Field(max_length=300)
    emoji: str = Field(max_length=16)
    state_after: str = Field(max_length=300)


def _respond(inputs: Inputs, rng: random.Random) -> Response:
    action = offline_actions.respond_to(str(inputs["object"]), str(inputs["state"]))
    if action is None:
        return Response(respond=False, action="", emoji="", state_after="")
    return Response(respond=True, action=action, emoji="🧯", state_after="idle")


RESPOND_EVENT = task_register(
    PromptTask(
        name="respond_event",
        template=TEMPLATE,
        output=Response,
        offline=_respond,
        description="whether and how to deal with something happening to an object",
    )
)
