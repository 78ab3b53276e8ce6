"""A model call as the outside sees it: the service's metrics of it (kernel/metrics.py)."""

from __future__ import annotations

from decimal import Decimal

from kernel.metrics import MODEL_CALL_SECONDS, MODEL_CALLS, MODEL_COST, MODEL_TOKENS

from .models import ModelCall


def calls_counted(
    call: ModelCall, *, outcome: str, seconds: float, tokens: tuple[int, int], cost: Decimal
) -> None:
    """The call in the service's metrics (kernel/metrics.py)."""
    MODEL_CALLS.labels(call.task, call.backend, call.model, outcome).inc()
    MODEL_CALL_SECONDS.labels(call.task, call.backend).observe(seconds)
    for direction, count in zip(("input", "output"), tokens, strict=True):
        if count:
            MODEL_TOKENS.labels(call.backend, call.model, direction).inc(count)
    if cost:
        MODEL_COST.labels(call.backend, call.model).inc(float(cost))
