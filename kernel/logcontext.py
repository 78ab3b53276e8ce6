"""What a log line is about: the request, the simulation, the resident, the step, the
task, kept in a context variable for the work under way (`about`), carried into the
threads of the named pools (kernel/pools.py) and written by the JSON log format
(kernel/logformat.py)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from types import MappingProxyType
from typing import Any

_NOTHING: Mapping[str, Any] = MappingProxyType({})
_fields: ContextVar[Mapping[str, Any]] = ContextVar("smallville_log_fields", default=_NOTHING)


@contextmanager
def about(**fields: Any) -> Iterator[None]:
    """Within the block, log lines carry these fields (None values are left out) beside
    those of the blocks around it."""
    token = _fields.set({**_fields.get(), **{k: v for k, v in fields.items() if v is not None}})
    try:
        yield
    finally:
        _fields.reset(token)


def current() -> Mapping[str, Any]:
    return _fields.get()
