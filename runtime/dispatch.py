"""How the tick's work is handed on: the units of work, and the broker that carries them.

The engine and reflection name each unit of work they hand on (`Tick`, `AgentSteps`,
`TickCommit`, `GroupDecide`, `Reflect`) and give it to `send` or `send_on_commit`; the broker in use
carries it. The default broker (`settings.SMALLVILLE_BROKER`) is `runtime.tasks.CeleryBroker`,
which sends each unit to its Celery task; `simulation_run_inline` uses an in-process
queue; tests record what is sent with `broker_used(...)`.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from typing import Protocol

from django.conf import settings
from django.db import transaction
from django.utils.module_loading import import_string


@dataclass(frozen=True)
class Tick:
    """Decide step `step` + 1 of a simulation (fanned out to agent steps), not before
    `not_before` (wall time, seconds since the epoch; 0: at once) when the run is paced."""

    simulation_id: int
    step: int
    not_before: float = 0.0


@dataclass(frozen=True)
class AgentSteps:
    """Decide step `step` for one shard of a simulation's agents."""

    simulation_id: int
    step: int
    names: tuple[str, ...]


@dataclass(frozen=True)
class TickCommit:
    """Commit step `step`; `later` when work it waits for (a reflection) is not done."""

    simulation_id: int
    step: int
    later: bool = False


@dataclass(frozen=True)
class GroupDecide:
    """Decide one group of residents at its step for the engine that runs them ahead,
    spread over workers (runtime.engine.ahead.spread); `token` names the group."""

    simulation_id: int
    token: str
    step: int
    names: tuple[str, ...]


@dataclass(frozen=True)
class Reflect:
    """Run a reflection job."""

    job_id: int


Work = Tick | AgentSteps | TickCommit | GroupDecide | Reflect


class Broker(Protocol):
    def send(self, work: Work) -> None: ...


@cache
def _configured(path: str) -> Broker:
    broker: Broker = import_string(path)()
    return broker


_override: contextvars.ContextVar[Broker | None] = contextvars.ContextVar(
    "broker_override", default=None
)


def broker() -> Broker:
    """The broker in use: an override of this context, else the configured one."""
    return _override.get() or _configured(settings.SMALLVILLE_BROKER)


@contextmanager
def broker_used(replacement: Broker) -> Iterator[Broker]:
    """Hand work to `replacement` within this block (this thread and context only)."""
    token = _override.set(replacement)
    try:
        yield replacement
    finally:
        _override.reset(token)


def send(work: Work) -> None:
    broker().send(work)


def send_on_commit(work: Work) -> None:
    """Send once the current transaction commits (at once outside one); the broker is
    the one in use now, not when the transaction ends."""
    carrier = broker()
    transaction.on_commit(lambda: carrier.send(work))


class RecordingBroker:
    """Keeps what is sent, in order, and runs nothing: for tests and dry runs."""

    def __init__(self) -> None:
        self.sent: list[Work] = []

    def send(self, work: Work) -> None:
        self.sent.append(work)
