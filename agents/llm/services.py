"""Writes of the ledger: admit a call against the simulation's budget, then complete it.

Both writes are short transactions of their own (`durable=True`): the port calls them
outside any caller transaction, so a ledger row, a usage count and a `budget_exhausted`
status are committed the moment they happen, whatever the caller does next.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from agents.models import Agent
from world.models import Simulation, SimulationStatus
from world.services import simulation_set_status

from .errors import BudgetExhausted
from .models import ModelCall, ModelUsage

_STOPPABLE = (SimulationStatus.IDLE, SimulationStatus.RUNNING, SimulationStatus.PAUSED)


def model_call_admit(
    *,
    simulation: Simulation | None,
    agent: Agent | None,
    task: str,
    backend: str,
    model: str,
    prompt: str,
) -> ModelCall:
    """Count a call against the budget and record it as in flight.

    Raises BudgetExhausted, after committing the simulation's `budget_exhausted` status,
    when the simulation has no calls or tokens left. The check is one conditional UPDATE
    of the usage row (`calls < budget`): concurrent workers serialise on that row for the
    length of this short transaction only, and exactly `budget_calls` calls get through.
    """
    call = ModelCall(
        simulation=simulation,
        agent=agent,
        agent_name=agent.name if agent else "",
        task=task,
        backend=backend,
        model=model,
        prompt=prompt,
    )
    if simulation is None:
        with transaction.atomic(durable=True):
            call.save()
        return call

    with transaction.atomic(durable=True):
        sim = Simulation.objects.only(
            "budget_calls", "budget_tokens", "step", "start_time", "sec_per_step"
        ).get(pk=simulation.pk)
        ModelUsage.objects.bulk_create(
            [ModelUsage(simulation_id=simulation.pk)], ignore_conflicts=True
        )
        usage = ModelUsage.objects.filter(simulation_id=simulation.pk)
        if sim.budget_calls is not None:
            usage = usage.filter(calls__lt=sim.budget_calls)
        if sim.budget_tokens is not None:
            usage = usage.filter(tokens__lt=sim.budget_tokens)
        if usage.update(calls=F("calls") + 1) == 1:
            call.step = sim.step
            call.sim_time = sim.sim_time
            call.save()
            return call
        reason = _exhausted_reason(sim, ModelUsage.objects.get(simulation_id=simulation.pk))
        simulation_set_status(
            simulation=simulation,
            status=SimulationStatus.BUDGET_EXHAUSTED,
            reason=reason,
            expected=_STOPPABLE,
        )
    raise BudgetExhausted(reason, simulation_id=simulation.pk)


def model_call_complete(
    *,
    call: ModelCall,
    raw_reply: str,
    output: dict[str, Any] | None,
    prompt_tokens: int,
    completion_tokens: int,
    usage: dict[str, int],
    latency_ms: int,
    attempt_log: list[dict[str, Any]],
    error: str,
) -> None:
    """Record how the call ended and add its tokens to the simulation's usage."""
    call.raw_reply = raw_reply
    call.output = output
    call.prompt_tokens = prompt_tokens
    call.completion_tokens = completion_tokens
    call.usage = usage
    call.latency_ms = latency_ms
    call.attempts = len(attempt_log)
    call.attempt_log = attempt_log
    call.error = error
    call.finished_at = timezone.now()
    with transaction.atomic(durable=True):
        call.save(
            update_fields=[
                "raw_reply",
                "output",
                "prompt_tokens",
                "completion_tokens",
                "usage",
                "latency_ms",
                "attempts",
                "attempt_log",
                "error",
                "finished_at",
            ]
        )
        if call.simulation_id is not None:
            ModelUsage.objects.filter(simulation_id=call.simulation_id).update(
                tokens=F("tokens") + prompt_tokens + completion_tokens
            )


def _exhausted_reason(sim: Simulation, usage: ModelUsage) -> str:
    spent = []
    if sim.budget_calls is not None and usage.calls >= sim.budget_calls:
        spent.append(f"{usage.calls} of {sim.budget_calls} model calls")
    if sim.budget_tokens is not None and usage.tokens >= sim.budget_tokens:
        spent.append(f"{usage.tokens} of {sim.budget_tokens} tokens")
    return "model budget exhausted: used " + " and ".join(spent)
