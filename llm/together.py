"""Calls of one step that do not depend on each other, made at once: cognition
says which calls are independent, the model port decides whether they wait together.

A conversation asks how each speaker stands with the other before the first line, and
after the last its summary and each speaker's takeaways: none reads another's answer,
so against a model behind the network they wait together, not one after another. What
they return is applied in the caller's order, so the step's events are the same.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from django.db import connection, connections

from kernel.pools import pool

from .backends import backend_is_remote


def together(*calls: Callable[[], Any]) -> list[Any]:
    """Each call's result, in order; made at once when a model behind the network answers
    them (offline they cost microseconds, and inside a transaction, a test's, another
    connection would not see its rows: then one after another)."""
    if len(calls) < 2 or not backend_is_remote() or connection.in_atomic_block:
        return [call() for call in calls]
    futures: list[Future[Any]] = [
        pool("together").submit(_in_thread, contextvars.copy_context(), call) for call in calls[1:]
    ]
    results: list[Any] = []
    failure: BaseException | None = None
    for run in (calls[0], *(future.result for future in futures)):
        try:
            results.append(run())
        except BaseException as exc:  # raised once every call has ended
            failure = failure or exc
    if failure is not None:
        raise failure
    return results


def _in_thread(context: contextvars.Context, call: Callable[[], Any]) -> Any:
    try:
        return context.run(call)  # the caller's call priority and fallback collector
    finally:
        connections.close_all()  # this thread's own connections
