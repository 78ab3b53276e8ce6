"""Reads of the ledger: a simulation's model calls and their totals per task, agent, hour."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.db.models import Count, Q, QuerySet, Sum
from django.db.models.functions import Coalesce, TruncHour

from world.models import Simulation

from .models import ModelCall, ModelUsage
from .settlement import ABANDONED


def model_call_list(
    *,
    simulation: Simulation,
    task: str | None = None,
    agent: str | None = None,
    backend: str | None = None,
    has_error: bool | None = None,
) -> QuerySet[ModelCall]:
    """The simulation's calls, newest first; `agent` is the agent's name."""
    calls = ModelCall.objects.filter(simulation=simulation)
    if task:
        calls = calls.filter(task=task)
    if agent:
        calls = calls.filter(agent_name=agent)
    if backend:
        calls = calls.filter(backend=backend)
    if has_error is not None:
        calls = calls.exclude(error="") if has_error else calls.filter(error="")
    return calls.order_by("-created_at", "-id")


_TOTALS = {
    "calls": Count("id"),
    "prompt_tokens": Coalesce(Sum("prompt_tokens"), 0),
    "completion_tokens": Coalesce(Sum("completion_tokens"), 0),
    "failed": Count("id", filter=~Q(error="") & Q(fallback=False)),
    "fallbacks": Count("id", filter=Q(fallback=True)),
    "attempts": Coalesce(Sum("attempts"), 0),
    "latency_ms": Coalesce(Sum("latency_ms"), 0),
    "cost": Coalesce(Sum("cost"), Decimal(0)),
}


def _with_tokens(row: dict[str, Any]) -> dict[str, Any]:
    row["tokens"] = row["prompt_tokens"] + row["completion_tokens"]
    return row


def _grouped(calls: QuerySet[ModelCall], *fields: str) -> list[dict[str, Any]]:
    rows = calls.values(*fields).annotate(**_TOTALS).order_by(*fields)
    return [_with_tokens(dict(row)) for row in rows]


def model_call_summary(*, simulation: Simulation) -> dict[str, Any]:
    """Calls billed, their tokens, failures and latency in total and per task, agent, model
    and sim hour, with the budget and how much of it is used (calls in flight count
    against it until they end)."""
    # The calls billed: ended, not settled as abandoned. A call in flight is counted once
    # it ends (or never, when its worker died).
    calls = (
        ModelCall.objects.filter(simulation=simulation, finished_at__isnull=False)
        .exclude(error=ABANDONED)
        .order_by()
    )
    usage = ModelUsage.objects.filter(simulation=simulation).first()
    return {
        "simulation": simulation.pk,
        "totals": _with_tokens(calls.aggregate(**_TOTALS)),
        "budget": {
            "calls": simulation.budget_calls,
            "tokens": simulation.budget_tokens,
            "calls_used": usage.calls if usage else 0,
            "tokens_used": usage.tokens if usage else 0,
            "money": usage.budget_money if usage else None,
            "money_used": usage.cost if usage else Decimal(0),
        },
        "by_task": _grouped(calls, "task"),
        "by_agent": _grouped(calls, "agent_name"),
        "by_model": _grouped(calls, "backend", "model"),
        "by_sim_hour": _grouped(calls.annotate(sim_hour=TruncHour("sim_time")), "sim_hour"),
    }


def model_call_fallback_rate(*, simulation: Simulation) -> float | None:
    """The share of the simulation's finished calls that took their task's fail-safe
    answer; None before any call ended."""
    counts = ModelCall.objects.filter(simulation=simulation, finished_at__isnull=False).aggregate(
        calls=Count("id"), fallbacks=Count("id", filter=Q(fallback=True))
    )
    return counts["fallbacks"] / counts["calls"] if counts["calls"] else None


def model_calls_ahead(*, simulation: Simulation) -> dict[str, dict[str, int]]:
    """The calls sent ahead and those of them a later step took, by task."""
    ahead = ModelCall.objects.filter(simulation=simulation, ahead=True).order_by()
    return {
        "sent": dict(ahead.values_list("task").annotate(n=Count("id")).values_list("task", "n")),
        "taken": dict(
            ahead.filter(taken_at__isnull=False)
            .values_list("task")
            .annotate(n=Count("id"))
            .values_list("task", "n")
        ),
    }
