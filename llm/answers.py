"""Answers shared between identical calls through the ledger: a call answered already, or
in flight in any process on any machine, is waited for and its answer taken, not asked
again; only a call that failed (or whose process died) is asked once more.

A call's key is a hash of what decides its answer: the resident, the task, the backend
and model, the seed and the prompt as sent. Admission writes the call's row with its key
unless a row with the same key is in flight or answered in the simulation (a unique
index over those rows, `llm_modelcall_one_shared_answer`): of two processes admitting
the same call at once, one writes the row and makes the call, the other finds the row
and waits. A row whose call fails, or that the watchdog settles as abandoned, leaves the
index, so the next identical call is admitted and asked. Calls sent ahead
(`llm_send_ahead`, llm/ahead.py) and the calls of an attempt of a unit of work that died
(a killed worker's reflection) are found this way by whichever process needs them.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from world.leases import holders_alive, process_holder, process_lease
from world.models import Agent

from .models import ModelCall
from .settlement import model_call_longest_seconds, model_calls_settle_abandoned

_POLL_MAX = 0.2  # seconds between two reads of a call in flight in another process
_running: dict[str, threading.Event] = {}  # keys of the calls in flight in this process
# Keys of calls this process stopped making with their row left in flight (the database
# went away before the completion was written): settled by the next identical call here.
_dropped: set[str] = set()
_lock = threading.Lock()


@dataclass(frozen=True)
class Shared:
    """The answer of an identical call made before (or in flight until now)."""

    call_id: int
    output: dict[str, Any]
    fallback: bool


def call_key(
    *, agent: Agent | None, task: str, backend: str, model: str, seed: int, prompt: str
) -> str:
    """What makes two calls of a simulation the same call."""
    who = str(agent.pk) if agent is not None else ""
    text = "\0".join((who, task, backend, model, str(seed), prompt))
    return hashlib.sha256(text.encode()).hexdigest()


@contextmanager
def answer_making(key: str) -> Iterator[None]:
    """This process makes the call with `key`: its own waiters wake when it ends."""
    event = threading.Event()
    with _lock:
        _running[key] = event
    try:
        yield
    except BaseException:
        with _lock:
            _dropped.add(key)  # its completion may not have been written
        raise
    finally:
        with _lock:
            if _running.get(key) is event:
                del _running[key]
        event.set()


def answer_await(*, simulation_id: int, key: str) -> Shared | None:
    """The answer of the call with `key` answered or in flight in the simulation, once it
    ends; None when there is none, it failed, or its process died (its row is settled as
    abandoned): the caller asks the model itself."""
    delay, checked = 0.005, time.monotonic()
    while True:
        row = (
            ModelCall.objects.filter(simulation_id=simulation_id, key=key, shared=True)
            .values_list("pk", "output", "fallback", "finished_at", "holder", "created_at")
            .first()
        )
        if row is None:
            return None
        pk, output, fallback, finished_at, holder, created_at = row
        if finished_at is not None:
            return Shared(pk, output or {}, fallback)
        with _lock:
            event = _running.get(key)
            dropped = key in _dropped and holder == process_holder()
            _dropped.discard(key)
        if dropped:
            model_calls_settle_abandoned(ids=[pk])  # this process gave it up
            continue
        if event is not None:
            event.wait(timeout=1.0)  # made here, in another thread: woken when it ends
            continue
        if time.monotonic() - checked >= settings.SMALLVILLE_LEASE_SECONDS / 3:
            checked = time.monotonic()
            if _abandoned(holder, created_at.timestamp()):
                model_calls_settle_abandoned(ids=[pk])
                continue
        time.sleep(delay)
        delay = min(delay * 2, _POLL_MAX)


def _abandoned(holder: str, created: float) -> bool:
    """Whether a call in flight will not end: its process's lease lapsed, or it has been in
    flight longer than a call can take."""
    if time.time() - created > model_call_longest_seconds():
        return True
    return bool(holder) and not holders_alive([process_lease(holder)])
