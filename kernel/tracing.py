"""OpenTelemetry traces (docs/operations.md, "Monitoring"), off unless the standard variable
OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) names a collector:
then each process exports its spans over OTLP/HTTP in batches (OTEL_BSP_* tune them,
OTEL_SERVICE_NAME names the service, "smallville" by default).

`span(name, kind=, attributes=)` opens a span as a child of the current one, with what the
work is about (kernel/logcontext.py: simulation, resident, step, task, request) as
`smallville.*` attributes; off, it costs one check. `inject` and `extract` carry the trace
across a queue (smallville_project/celery.py) and into a request (observability/)."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from contextlib import AbstractContextManager, contextmanager
from typing import Any

from kernel.logcontext import about, current

_ENDPOINTS = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
_provider: tuple[int, Any] | None = None  # (the process that made it, the provider)
_lock = threading.Lock()


def tracing_on() -> bool:
    return any(os.environ.get(name) for name in _ENDPOINTS)


def _tracer() -> Any:
    """This process's tracer: its provider and exporter are made on first use in each
    process (a Celery pool process exports from a batch thread of its own). The provider
    is this module's, not OpenTelemetry's global one: spans nest through the context."""
    global _provider
    if _provider is None or _provider[0] != os.getpid():
        with _lock:
            if _provider is None or _provider[0] != os.getpid():
                from opentelemetry.exporter.otlp.proto.http.trace_exporter import (
                    OTLPSpanExporter,
                )
                from opentelemetry.sdk.resources import Resource
                from opentelemetry.sdk.trace import TracerProvider
                from opentelemetry.sdk.trace.export import BatchSpanProcessor

                name = os.environ.get("OTEL_SERVICE_NAME", "smallville")
                made = TracerProvider(resource=Resource.create({"service.name": name}))
                made.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
                _provider = (os.getpid(), made)
    return _provider[1].get_tracer("smallville")


def _about() -> dict[str, Any]:
    return {f"smallville.{key}": value for key, value in current().items()}


@contextmanager
def span(
    name: str,
    *,
    kind: str = "internal",
    context: Any = None,
    attributes: Mapping[str, Any] | None = None,
) -> Iterator[Any]:
    """A span around the block (None inside when tracing is off)."""
    if not tracing_on():
        yield None
        return
    from opentelemetry.trace import SpanKind

    values = {**_about(), **{k: v for k, v in (attributes or {}).items() if v is not None}}
    with _tracer().start_as_current_span(
        name, context=context, kind=getattr(SpanKind, kind.upper()), attributes=values
    ) as opened:
        yield opened


def flush() -> None:
    """Export what is waiting (a process about to exit)."""
    if _provider is not None and _provider[0] == os.getpid():
        _provider[1].force_flush()


def inject(carrier: MutableMapping[str, Any]) -> None:
    """The current trace's context into `carrier` (a message's headers)."""
    if tracing_on():
        from opentelemetry import propagate

        propagate.inject(carrier)


def extract(carrier: Mapping[str, Any]) -> Any:
    """A trace's context from `carrier` (None when tracing is off)."""
    if not tracing_on():
        return None
    from opentelemetry import propagate

    return propagate.extract(carrier)


def carried() -> Callable[[], AbstractContextManager[None]]:
    """What the current work is about (its log fields and, tracing, its span), to be
    entered in another thread (kernel/pools.py): only these, never the rest of the
    caller's context variables (a call's priority, a broker in use stay the caller's)."""
    fields = dict(current())
    parent = None
    if tracing_on():
        from opentelemetry import context

        parent = context.get_current()

    @contextmanager
    def inside() -> Iterator[None]:
        with about(**fields):
            if parent is None:
                yield
                return
            from opentelemetry import context

            token = context.attach(parent)
            try:
                yield
            finally:
                context.detach(token)

    return inside
