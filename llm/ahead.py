"""Calls sent ahead (issue 20): a call whose inputs a step can foresee is made in the
background, and the step that later makes the same call takes its answer.

`llm_send_ahead(task=..., inputs=..., agent=...)` starts the call now, at background
priority, when the backend answers over the network (offline answers cost nothing to
wait for). `llm_run` with the same task, inputs and simulation seed takes the answer
instead of asking again: the same request, so the same answer from a deterministic
policy and an equally valid one from a model. A call sent ahead whose inputs never come
to pass is a call wasted (it is in the ledger, at priority 1, and counts against the
budget); correctness never depends on it, since only an exact match is taken.
"""

from __future__ import annotations

import json
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import Any

from django.conf import settings
from django.db import connections
from pydantic import BaseModel

from world.models import Agent, Simulation

from .backends import backend_is_remote
from .tasks import Inputs, PromptTask

_KEPT = 16_384  # answers kept for steps to come; the oldest go first

_Answer = tuple[BaseModel, list[dict[str, Any]]]  # the output, and fallbacks of the call
_Key = tuple[int, int, str, str]
_sent: OrderedDict[_Key, Future[_Answer]] = OrderedDict()
_lock = threading.Lock()
_counts: dict[str, Counter[str]] = {"sent": Counter(), "taken": Counter()}  # by task
_pool: ThreadPoolExecutor | None = None


def _key(task: PromptTask[Any], inputs: Inputs, simulation: Simulation, agent: Agent) -> _Key:
    return (simulation.pk, agent.pk, task.name, json.dumps(inputs, sort_keys=True, default=str))


def ahead_send(
    task: PromptTask[Any],
    inputs: Inputs,
    simulation: Simulation,
    agent: Agent,
    call: Callable[[], _Answer],
) -> bool:
    """Run `call` (the port's call of `task` with `inputs`, in the background) unless the
    same is sent already or the backend is offline; True when it is in flight now."""
    global _pool
    if not backend_is_remote():
        return False
    key = _key(task, inputs, simulation, agent)
    with _lock:
        if key in _sent:
            return False
        if _pool is None:
            # As many as the engine keeps in flight, or the model server's slots.
            slots = int(settings.SMALLVILLE_LLM_CONCURRENCY or 0)
            workers = slots or max(8, int(settings.SMALLVILLE_CALLS_IN_FLIGHT))
            _pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ahead-call")
        _sent[key] = _pool.submit(_in_background, call)
        _counts["sent"][task.name] += 1
        while len(_sent) > _KEPT:
            _sent.popitem(last=False)
    return True


def _in_background(call: Callable[[], _Answer]) -> _Answer:
    try:
        return call()
    finally:
        connections.close_all()  # this thread's own connections


def ahead_take(
    task: PromptTask[Any], inputs: Inputs, simulation: Simulation, agent: Agent
) -> _Answer | None:
    """The answer of the same call sent ahead (waiting for it if still in flight), or None
    when none was sent or it failed (the caller asks now)."""
    if not _sent:
        return None
    with _lock:
        future = _sent.pop(_key(task, inputs, simulation, agent), None)
    if future is None:
        return None
    try:
        answer = future.result()
    except Exception:
        return None
    with _lock:
        _counts["taken"][task.name] += 1
    return answer


def ahead_settle(timeout: float | None = None) -> None:
    """Wait for the calls sent ahead that are still in flight (a process that ends, or a
    benchmark about to stop its model server)."""
    with _lock:
        pending = [future for future in _sent.values() if not future.done()]
    wait(pending, timeout=timeout)


def ahead_counts() -> dict[str, dict[str, int]]:
    """Calls this process sent ahead and calls that took their answer, by task."""
    with _lock:
        return {kind: dict(counts) for kind, counts in _counts.items()}
