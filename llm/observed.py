"""A model call as the outside sees it: the service's metrics of it (kernel/metrics.py) and
its trace span (kernel/tracing.py) per the OpenTelemetry GenAI conventions: the operation,
the provider (the backend), the model, the tokens, and the prompt and the answer only when
SMALLVILLE_TRACE_CONTENT allows."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from typing import Any

from django.conf import settings

from kernel.metrics import (
    MODEL_CALL_SECONDS,
    MODEL_CALLS,
    MODEL_CALLS_IN_FLIGHT,
    MODEL_COST,
    MODEL_TOKENS,
)
from kernel.tracing import span

from .models import ModelCall


@contextmanager
def call_observed(*, task: str, backend: str, model: str, messages: Any) -> Iterator[Any]:
    """One call to the backend: in flight meanwhile, and its span (None inside when
    tracing is off)."""
    in_flight = MODEL_CALLS_IN_FLIGHT.labels(backend)
    in_flight.inc()
    try:
        with _call_span(task=task, backend=backend, model=model, messages=messages) as opened:
            yield opened
    finally:
        in_flight.dec()


@contextmanager
def _call_span(*, task: str, backend: str, model: str, messages: Any) -> Iterator[Any]:
    attributes = {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": backend,
        "gen_ai.request.model": model,
        "smallville.task": task,
    }
    with span(f"chat {model}", kind="client", attributes=attributes) as opened:
        if opened is not None and settings.SMALLVILLE_TRACE_CONTENT:
            opened.set_attribute("gen_ai.input.messages", json.dumps(messages, default=str))
        yield opened


def calls_counted(
    call: ModelCall,
    *,
    outcome: str,
    seconds: float,
    tokens: tuple[int, int],
    cost: Decimal,
    traced: Any = None,
    answer: str = "",
) -> None:
    """The call in the service's metrics, and its outcome on its span (`traced`)."""
    MODEL_CALLS.labels(call.task, call.backend, call.model, outcome).inc()
    MODEL_CALL_SECONDS.labels(call.task, call.backend).observe(seconds)
    for direction, count in zip(("input", "output"), tokens, strict=True):
        if count:
            MODEL_TOKENS.labels(call.backend, call.model, direction).inc(count)
    if cost:
        MODEL_COST.labels(call.backend, call.model).inc(float(cost))
    if traced is not None:
        traced.set_attribute("gen_ai.usage.input_tokens", tokens[0])
        traced.set_attribute("gen_ai.usage.output_tokens", tokens[1])
        traced.set_attribute("smallville.outcome", outcome)
        traced.set_attribute("smallville.fallback", outcome == "fallback")
        traced.set_attribute("smallville.cost_usd", float(cost))
        traced.set_attribute("smallville.call", call.pk)
        if settings.SMALLVILLE_TRACE_CONTENT and answer:
            traced.set_attribute("gen_ai.output.messages", answer)
