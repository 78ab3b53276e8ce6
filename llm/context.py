"""Prompts that fit the model's context window: trimmed, least relevant first.

A small local model has a window of a couple of thousand tokens, and a prompt that does
not leave room for the reply is an overflow error on the server. Before a call the
prompt is measured (with the server's own tokenizer where it has one, see
`OpenAIBackend.token_counter`) and, while the prompt and the reply it needs do not fit,
the retrieved memories are trimmed from their least relevant end (retrieval lists them
most relevant first), then a conversation from its oldest line, then the longest text
input from its end; the reply's limit is what room is left, at most the task's own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .tasks import Inputs, PromptTask, output_token_limit

MESSAGE_OVERHEAD = 24  # the chat template's tokens around one user message
MIN_REPLY = 48
# Retrieved memories, most relevant first: trimmed from the end.
_RETRIEVED = ("memories", "statements", "recent", "commitments")
_DIALOGUE = ("dialogue",)  # oldest line first: trimmed from the start


@dataclass(frozen=True)
class Fitted:
    prompt: str
    inputs: Inputs
    max_tokens: int
    trimmed: int  # list items and text cuts made to fit


def prompt_fit(
    *, task: PromptTask[Any], inputs: Inputs, context_tokens: int, count: Callable[[str], int]
) -> Fitted:
    """The prompt for `inputs` as it fits `context_tokens` with room for the reply."""
    limit = output_token_limit(task)
    prompt = task.render(inputs)
    if context_tokens <= 0:
        return Fitted(prompt, inputs, limit, 0)
    wanted = min(limit, max(MIN_REPLY, context_tokens // 2))
    current = dict(inputs)
    trimmed = 0
    while True:
        room = context_tokens - count(prompt) - MESSAGE_OVERHEAD
        if room >= wanted or not _trim(current, deficit=wanted - room):
            return Fitted(prompt, current, max(min(limit, room), 1), trimmed)
        trimmed += 1
        prompt = task.render(current)


def _trim(inputs: dict[str, object], *, deficit: int) -> bool:
    """Drop one thing from `inputs` (in place); False when nothing is left to drop."""
    for names, from_start in ((_RETRIEVED, False), (_DIALOGUE, True)):
        for name in names:
            value = inputs.get(name)
            if isinstance(value, (list, tuple)) and len(value) > 1:
                items = list(value)
                items.pop(0 if from_start else -1)
                inputs[name] = items
                return True
    texts = [(len(v), k) for k, v in inputs.items() if isinstance(v, str) and len(v) > 200]
    if not texts:
        return False
    _, name = max(texts)
    text = str(inputs[name])
    inputs[name] = text[: max(200, len(text) - max(deficit, 16) * 4)]
    return True
