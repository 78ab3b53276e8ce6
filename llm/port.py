"""The one call shape for language models: `llm_run(task=..., inputs=...) -> output`.

A call renders the task's template with the inputs, is admitted against the simulation's
budget (a ledger row in flight), goes to the configured backend, and is completed in the
ledger whatever happens: parsed output, or typed error after its attempts.

Budget and transactions. `llm_run` refuses to run inside a database transaction
(ModelCallInTransaction), and its ledger writes are `durable` transactions of their
own. We chose this over a separate connection or a check-after-rollback because:
- a model call takes seconds to a minute; a caller's transaction held open across it
  keeps its row locks (e.g. the simulation row `events_append` updates) and stalls the
  tick for everyone;
- with no enclosing transaction there is nothing to roll back: the admission (one
  conditional UPDATE of the usage counter: `calls < budget_calls AND tokens <
  budget_tokens`), the ledger row and, when the budget is spent, the simulation's
  `budget_exhausted` status and message are each committed before `llm_run` returns
  or raises. Whatever the caller committed before the stop stays committed; the
  caller writes a model's answer in its own transaction after the call.
So a simulation with a 10-call budget makes exactly 10 calls, even with concurrent
workers (they serialise on the usage row for one short UPDATE), and the 11th raises
BudgetExhausted. The token budget is checked the same way before each call; the call
that crosses it completes, so a simulation can end at most one call's tokens over.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from enum import IntEnum
from typing import Any, overload

from django.db import transaction
from pydantic import BaseModel

from kernel.metrics import MODEL_CALLS
from world.leases import process_holder
from world.models import Agent, Simulation

from .ahead import ahead_send
from .answers import answer_await, answer_making, call_key
from .backends import (
    Attempt,
    Backend,
    BackendResult,
    ModelRequest,
    message_list,
)
from .context import Fitted
from .errors import (
    BudgetExhausted,
    LLMError,
    ModelCallFailed,
    ModelCallInTransaction,
    ModelOutputInvalid,
    ModelRequestRejected,
    ModelUnavailable,
    TaskInputError,
    UnknownTask,
)
from .failsafe import fail_safe
from .models import ModelCall, ModelProfile
from .observed import call_observed, calls_counted
from .profiles import call_cost, profile_backend, profile_route
from .services import model_call_claim, model_call_complete, model_call_take
from .tasks import Inputs, OutputT, PromptTask, task_get

__all__ = [
    "BudgetExhausted",
    "LLMError",
    "ModelCallFailed",
    "ModelCallInTransaction",
    "ModelOutputInvalid",
    "ModelRequestRejected",
    "ModelUnavailable",
    "TaskInputError",
    "UnknownTask",
    "calls_for_step",
    "fallbacks_collected",
    "fallbacks_record",
    "llm_run",
    "llm_send_ahead",
]

# The fallbacks of the calls made inside `fallbacks_collected()`, in this thread.
_fallbacks: ContextVar[list[dict[str, Any]] | None] = ContextVar("fallbacks", default=None)


class CallPriority(IntEnum):
    """How soon a call's answer is awaited; a server that orders its queue by priority
    (vLLM: lower first) serves the residents' steps and users before background work."""

    CRITICAL = 0  # a resident's step, a user's interview or whisper: someone waits on it
    BACKGROUND = 1  # reflection jobs, evaluations: nothing in the town waits on them


_priority: ContextVar[CallPriority] = ContextVar("call_priority", default=CallPriority.CRITICAL)
# The resident's step a decision is made for: its calls' `step` and `decider` in the
# ledger (without it, the simulation's step, which lags a resident that runs ahead).
_decision: ContextVar[tuple[int, str] | None] = ContextVar("call_decision", default=None)


@contextmanager
def calls_for_step(step: int, decider: str) -> Iterator[None]:
    """The calls made in the block are for step `step` of resident `decider`."""
    token = _decision.set((step, decider))
    try:
        yield
    finally:
        _decision.reset(token)


@contextmanager
def calls_in_background() -> Iterator[None]:
    """The calls made in the block are background work (`CallPriority.BACKGROUND`)."""
    token = _priority.set(CallPriority.BACKGROUND)
    try:
        yield
    finally:
        _priority.reset(token)


@contextmanager
def fallbacks_collected() -> Iterator[list[dict[str, Any]]]:
    """Collect `{"task", "call"}` for each call in the block that took its task's
    fail-safe answer, so the events the block writes can say so."""
    collected: list[dict[str, Any]] = []
    token = _fallbacks.set(collected)
    try:
        yield collected
    finally:
        _fallbacks.reset(token)


def fallbacks_record(entries: list[dict[str, Any]]) -> None:
    """Count fallbacks of calls made elsewhere (a call sent ahead in the background) as
    this block's, as if they had been made in it."""
    if (collected := _fallbacks.get()) is not None:
        collected.extend(entries)


@overload
def llm_run(
    *,
    task: PromptTask[OutputT],
    inputs: Inputs,
    simulation: Simulation | None = None,
    agent: Agent | None = None,
    shared: bool = True,
    profile: ModelProfile | None = None,
) -> OutputT: ...


@overload
def llm_run(
    *,
    task: str,
    inputs: Inputs,
    simulation: Simulation | None = None,
    agent: Agent | None = None,
    shared: bool = True,
    profile: ModelProfile | None = None,
) -> BaseModel: ...


def llm_run(
    *,
    task: PromptTask[Any] | str,
    inputs: Inputs,
    simulation: Simulation | None = None,
    agent: Agent | None = None,
    shared: bool = True,
    profile: ModelProfile | None = None,
) -> BaseModel:
    """Run a prompt task and return its validated output; every call is a ledger row.

    `simulation` defaults to the agent's. An identical call answered or in flight is
    taken (llm/answers.py) unless `shared` is False: a draw of its own, as an
    evaluation's answers under each condition are (its judge compares them). Raises
    TaskInputError (nothing is counted), ModelCallInTransaction, BudgetExhausted (the
    simulation is now `budget_exhausted`), or a ModelCallFailed subclass once retries and
    re-asks are spent. `profile` answers the call over the simulation's routes (an
    evaluation's judge on a profile of its own).
    """
    prompt_task = task_get(task) if isinstance(task, str) else task
    if agent is not None:
        if simulation is not None and agent.simulation_id != simulation.pk:
            raise ValueError(f"agent {agent.name} is not in simulation {simulation.pk}")
        simulation = simulation or agent.simulation
    # The simulation's profile for the task (llm/profiles.py); a keyless one fails here.
    profile = profile or profile_route(
        simulation_id=simulation.pk if simulation else None, task=prompt_task.name
    )
    backend = profile_backend(profile)
    # The prompt, fitted to the model's window; inputs that do not match the template
    # fail here, before anything is counted.
    fitted = backend.fit(prompt_task, inputs)
    output = _call(
        prompt_task, inputs, fitted, backend, simulation, agent, shared=shared, profile=profile
    )
    assert output is not None
    return output


def llm_send_ahead(
    *,
    task: PromptTask[Any] | str,
    inputs: Inputs | Callable[[], Inputs | None],
    simulation: Simulation,
    agent: Agent,
) -> bool:
    """Make now, in the background, a call a later step of `agent` will make with these
    inputs (llm/ahead.py); its `llm_run`, in whichever process, takes the answer from the
    ledger (llm/answers.py). Cognition says which calls may go ahead; the port decides
    whether they do: nothing when the backend answers in process (offline, nothing to
    wait for) or the call is sent already. `inputs` may be a function, called only when
    the call would go (None: it does not). True when it was sent."""
    prompt_task = task_get(task) if isinstance(task, str) else task
    profile = profile_route(simulation_id=simulation.pk, task=prompt_task.name)
    backend = profile_backend(profile)
    if backend.name == "offline":
        return False
    if callable(inputs):
        foreseen = inputs()
        if foreseen is None:
            return False
        inputs = foreseen
    fitted = backend.fit(prompt_task, inputs)  # a bad input fails here, in the caller

    decision = _decision.get()

    def call() -> None:
        with calls_in_background(), fallbacks_collected():
            token = _decision.set(decision)  # in the ledger as made by the step that sent it
            try:
                _call(
                    prompt_task,
                    inputs,
                    fitted,
                    backend,
                    simulation,
                    agent,
                    ahead=True,
                    profile=profile,
                )
            finally:
                _decision.reset(token)

    return ahead_send(prompt_task, inputs, simulation, agent, call)


def _call(
    prompt_task: PromptTask[Any],
    inputs: Inputs,
    fitted: Fitted,
    backend: Backend,
    simulation: Simulation | None,
    agent: Agent | None,
    ahead: bool = False,
    shared: bool = True,
    profile: ModelProfile | None = None,
) -> BaseModel | None:
    """Admit, ask the backend, complete the ledger row: one call of `llm_run`; or take the
    answer of the same call answered or in flight (llm/answers.py). A call sent `ahead`
    that finds the same call made or in flight does nothing (None)."""
    if _in_transaction():
        raise ModelCallInTransaction(ModelCallInTransaction.__doc__)
    seed = prompt_task.seed(simulation_seed=simulation.seed if simulation else 0, inputs=inputs)
    request = ModelRequest(
        task=prompt_task,
        inputs=fitted.inputs,
        messages=message_list(fitted.prompt),
        seed=seed,
        max_tokens=fitted.max_tokens,
        priority=_priority.get(),
    )
    key = ""
    if simulation is not None and shared:
        key = call_key(
            agent=agent,
            task=prompt_task.name,
            backend=backend.name,
            model=backend.model,
            seed=seed,
            prompt=fitted.prompt,
        )
    step, decider = decision if (decision := _decision.get()) else (None, "")
    while True:
        call = model_call_claim(
            simulation=simulation,
            agent=agent,
            task=prompt_task.name,
            backend=backend.name,
            model=backend.model,
            prompt=fitted.prompt,
            priority=int(request.priority),
            step=step,
            decider=decider,
            key=key,
            holder=process_holder(),
            ahead=ahead,
            profile_id=profile.pk if profile else None,
        )
        if call is not None:
            break
        if ahead:
            return None  # asked already, or being asked: nothing to send
        assert simulation is not None
        if (taken := answer_await(simulation_id=simulation.pk, key=key)) is not None:
            model_call_take(call_id=taken.call_id, step=step, decider=decider)
            MODEL_CALLS.labels(prompt_task.name, backend.name, backend.model, "shared").inc()
            if taken.fallback:
                fallbacks_record([{"task": prompt_task.name, "call": taken.call_id}])
            return prompt_task.output.model_validate(taken.output)
        # The identical call failed or its process died: this one asks.
    started = time.monotonic()
    observed = call_observed(
        task=prompt_task.name, backend=backend.name, model=backend.model, messages=request.messages
    )
    with answer_making(key), observed as opened:
        try:
            result = backend.complete(request)
        except BaseException as exc:  # a bug or an interrupt: still account for the call
            crashed = Attempt(outcome="crashed", error=f"{type(exc).__name__}: {exc}")
            failed = BackendResult(output=None, raw_reply="", attempts=[crashed])
            _complete(call, failed, started, profile, opened)
            raise
        if isinstance(result.failure, ModelOutputInvalid) and backend.name != "offline":
            result = fail_safe(result, task=prompt_task, inputs=inputs, seed=seed)
        _complete(call, result, started, profile, opened)
    if result.fallback and (collected := _fallbacks.get()) is not None:
        collected.append({"task": prompt_task.name, "call": call.pk})
    if result.failure is not None:
        result.failure.call_id = call.pk
        raise result.failure
    assert result.output is not None
    return result.output


def _complete(
    call: ModelCall,
    result: BackendResult,
    started: float,
    profile: ModelProfile | None,
    traced: Any = None,
) -> None:
    if result.fallback:
        error = f"fallback: the model's output stayed invalid ({result.attempts[-1].error})"
    elif result.failure is not None:
        error = str(result.failure)
    elif result.output is None:
        error = result.attempts[-1].error
    else:
        error = ""
    prompt_tokens = sum(attempt.prompt_tokens for attempt in result.attempts)
    completion_tokens = sum(attempt.completion_tokens for attempt in result.attempts)
    seconds = time.monotonic() - started
    cost = call_cost(profile, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens)
    calls_counted(
        call,
        outcome="fallback" if result.fallback else ("failed" if error else "answered"),
        seconds=seconds,
        tokens=(prompt_tokens, completion_tokens),
        cost=cost,
        traced=traced,
        answer=result.raw_reply,
    )
    model_call_complete(
        call=call,
        raw_reply=result.raw_reply,
        output=result.output.model_dump(mode="json") if result.output is not None else None,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        usage=result.usage,
        latency_ms=round(seconds * 1000),
        attempt_log=[attempt.as_log() for attempt in result.attempts],
        error=error[:4000],
        fallback=result.fallback,
        cost=cost,
    )


def _in_transaction() -> bool:
    """True inside an atomic block of the caller; a test case's own wrapper does not count."""
    connection = transaction.get_connection()
    return any(not getattr(block, "_from_testcase", False) for block in connection.atomic_blocks)
