"""The fail-safe answer of a call whose model output stayed invalid."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from pydantic import ValidationError

from .backends import BackendResult
from .tasks import Inputs, PromptTask


def fail_safe(
    result: BackendResult, *, task: PromptTask[Any], inputs: Inputs, seed: int
) -> BackendResult:
    """The task's fail-safe answer for a model whose output stayed invalid: the offline
    policy for the same inputs and seed (what an offline run would have done), recorded as
    a fallback; unless SMALLVILLE_LLM_FALLBACK is "fail"."""
    if settings.SMALLVILLE_LLM_FALLBACK != "offline":
        return result
    try:
        output = task.run_offline(seed=seed, inputs=inputs)
    except ValidationError:
        return result  # the policy cannot answer these inputs either: the call fails
    result.output, result.fallback = output, True
    result.failure = None
    return result
