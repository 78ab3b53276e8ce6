"""Calls sent ahead: a call whose inputs a step can foresee is made in the
background, and the step that later makes the same call takes its answer.

`llm_send_ahead(task=..., inputs=..., agent=...)` starts the call now, at background
priority, when the backend answers over the network (offline answers cost nothing to
wait for). The call is a ledger row like any other, marked `ahead`: `llm_run` with the
same task and inputs, in any process on any machine, finds it through the ledger
(llm/answers.py), waits for it if it is still in flight and takes its answer instead of
asking again; the row says when, and by which step, it was taken. A call sent ahead
whose inputs never come to pass is a call wasted (it is in the ledger, at priority 1,
and counts against the budget); correctness never depends on it, since only an exact
match is taken.
"""

from __future__ import annotations

import json
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future, wait
from typing import Any

from kernel.pools import in_own_connection, pool
from world.models import Agent, Simulation

from .backends import backend_is_remote
from .errors import LLMError
from .tasks import Inputs, PromptTask

log = logging.getLogger(__name__)

_KEPT = 16_384  # calls this process remembers sending, so it sends each once
_Key = tuple[int, int, str, str]
_sent: OrderedDict[_Key, Future[None]] = OrderedDict()
_lock = threading.Lock()


def _key(task: PromptTask[Any], inputs: Inputs, simulation: Simulation, agent: Agent) -> _Key:
    return (simulation.pk, agent.pk, task.name, json.dumps(inputs, sort_keys=True, default=str))


def ahead_send(
    task: PromptTask[Any],
    inputs: Inputs,
    simulation: Simulation,
    agent: Agent,
    call: Callable[[], None],
) -> bool:
    """Run `call` (the port's call of `task` with `inputs`, in the background) unless this
    process sent the same already or the backend is offline; True when it is sent now.
    (Sent by another process, or asked meanwhile, the call finds its ledger row and does
    nothing.)"""
    if not backend_is_remote():
        return False
    key = _key(task, inputs, simulation, agent)
    with _lock:
        if key in _sent:
            return False
        calls = pool("ahead-call")
        sent = calls.submit(in_own_connection, call, calls)
        sent.add_done_callback(lambda done: _report(done, task.name, agent.name))
        _sent[key] = sent
        while len(_sent) > _KEPT:
            _sent.popitem(last=False)
    return True


def _report(sent: Future[None], task: str, agent: str) -> None:
    """Say why a call sent ahead ended in an error: no one waits on its future, so its
    exception would otherwise be lost (a model's failure is in the ledger too; anything
    else, a bug or the database, may have left its row in flight for the watchdog)."""
    error = sent.exception()
    if error is None:
        return
    if isinstance(error, LLMError):
        log.info("a %s call sent ahead for %s failed: %s", task, agent, error)
    else:
        log.error("a %s call sent ahead for %s crashed", task, agent, exc_info=error)


def ahead_settle(timeout: float | None = None) -> None:
    """Wait for the calls this process sent ahead that are still in flight (a process that
    ends, or a benchmark about to stop its model server)."""
    with _lock:
        pending = [future for future in _sent.values() if not future.done()]
    wait(pending, timeout=timeout)
