"""Writes of the ledger: admit a call against the simulation's budget, then complete it.

Each write is one statement, and the port calls them outside any caller transaction
(`ModelCallInTransaction`), so a ledger row with its usage count, a call's outcome and a
`budget_exhausted` status are committed the moment they happen, whatever the caller does
next. A call costs two round trips to the database.

A call whose process died in flight (a worker killed, the database gone before the
call's completion was written) would stay counted and unfinished for ever: the watchdog
settles it (`model_calls_settle_abandoned`) once it is older than the longest a call can
take, and takes its count back, so the ledger bills only calls that ended.
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import connection
from django.utils import timezone

from world.models import Agent, Simulation, SimulationStatus
from world.services import simulation_set_status

from .errors import BudgetExhausted, QuotaExceeded
from .models import ModelCall, ModelQuota, ModelUsage

_STOPPABLE = (SimulationStatus.IDLE, SimulationStatus.RUNNING, SimulationStatus.PAUSED)


QUOTA_WINDOW = timedelta(days=1)


def model_quota_check(*, owner_id: int) -> None:
    """QuotaExceeded when the owner made its quota of calls in the last day."""
    own = ModelQuota.objects.filter(user_id=owner_id).values_list("calls_per_day", flat=True)
    rows = list(own)
    limit = rows[0] if rows else settings.SMALLVILLE_USER_DAILY_CALLS
    if limit is None:
        return
    since = timezone.now() - QUOTA_WINDOW
    window = ModelCall.objects.filter(simulation__owner_id=owner_id, created_at__gte=since)
    if window.count() < limit:
        return
    oldest = window.order_by("created_at").values_list("created_at", flat=True).first()
    wait = (oldest + QUOTA_WINDOW - timezone.now()).total_seconds() if oldest else 60
    raise QuotaExceeded(
        f"the model-call quota of {limit} calls a day is used up", retry_after=max(1, int(wait))
    )


def model_call_admit(
    *,
    simulation: Simulation | None,
    agent: Agent | None,
    task: str,
    backend: str,
    model: str,
    prompt: str,
    priority: int = 0,
    step: int | None = None,
    decider: str = "",
) -> ModelCall:
    """Count a call against the budget and record it as in flight.

    Raises BudgetExhausted, after committing the simulation's `budget_exhausted` status,
    when the simulation has no calls or tokens left. The check is a conditional UPDATE of
    the usage row (`calls < budget`) in the statement that writes the ledger row:
    concurrent workers serialise on that row for one statement, and exactly
    `budget_calls` calls get through.
    """
    if simulation is not None:
        model_quota_check(owner_id=simulation.owner_id)
    call = ModelCall(
        simulation=simulation,
        agent=agent,
        agent_name=agent.name if agent else "",
        decider=decider,
        task=task,
        backend=backend,
        model=model,
        prompt=prompt,
        priority=priority,
    )
    if simulation is None:
        call.save()
        return call
    for _ in range(2):
        with connection.cursor() as cursor:
            cursor.execute(
                _ADMIT_SQL,
                {
                    "simulation": simulation.pk,
                    "agent": agent.pk if agent else None,
                    "agent_name": call.agent_name,
                    "task": task,
                    "backend": backend,
                    "model": model,
                    "prompt": prompt,
                    "priority": priority,
                    "step": step,
                    "decider": decider,
                },
            )
            admitted = cursor.fetchone()
        if admitted is not None:
            call.pk, call.step, call.sim_time, call.created_at = admitted
            call._state.adding = False
            call._state.db = "default"
            return call
        # Not admitted: the usage row is missing (the simulation's first call) or spent.
        # Make sure it exists (another thread may be making it) and try once more.
        ModelUsage.objects.bulk_create(
            [ModelUsage(simulation_id=simulation.pk)], ignore_conflicts=True
        )
    sim = Simulation.objects.get(pk=simulation.pk)
    reason = _exhausted_reason(sim, ModelUsage.objects.get(simulation_id=simulation.pk))
    simulation_set_status(
        simulation=simulation,
        status=SimulationStatus.BUDGET_EXHAUSTED,
        reason=reason,
        expected=_STOPPABLE,
    )
    raise BudgetExhausted(reason, simulation_id=simulation.pk)


# Admission is one statement: count the call against the budget and write its ledger row,
# or neither (no row comes back).
_ADMIT_SQL = f"""
WITH admitted AS (
    UPDATE {ModelUsage._meta.db_table} AS u SET calls = u.calls + 1
    FROM {Simulation._meta.db_table} AS s
    WHERE u.simulation_id = %(simulation)s AND s.id = %(simulation)s
      AND (s.budget_calls IS NULL OR u.calls < s.budget_calls)
      AND (s.budget_tokens IS NULL OR u.tokens < s.budget_tokens)
    RETURNING COALESCE(%(step)s::int, s.step) AS step,
        s.start_time + COALESCE(%(step)s::int, s.step) * s.sec_per_step * interval '1 second'
        AS sim_time
)
INSERT INTO {ModelCall._meta.db_table} (
    simulation_id, agent_id, agent_name, decider, step, sim_time, task, priority, backend, model,
    prompt, raw_reply, prompt_tokens, completion_tokens, usage, latency_ms, attempts,
    attempt_log, error, fallback, created_at
)
SELECT %(simulation)s, %(agent)s, %(agent_name)s, %(decider)s, a.step, a.sim_time, %(task)s,
       %(priority)s, %(backend)s, %(model)s, %(prompt)s, '', 0, 0, '{{}}'::jsonb, 0, 0,
       '[]'::jsonb, '', false, now()
FROM admitted AS a
RETURNING id, step, sim_time, created_at
"""
# Completion is one statement too: the call's outcome and its tokens in the usage row. A
# call settled as abandoned meanwhile (it outlived the bound) is counted again: it ended.
_COMPLETE_SQL = f"""
WITH prior AS (
    SELECT id, finished_at IS NOT NULL AS settled FROM {ModelCall._meta.db_table}
    WHERE id = %(id)s FOR UPDATE
), done AS (
    UPDATE {ModelCall._meta.db_table} SET
        raw_reply = %(raw_reply)s, output = %(output)s::jsonb,
        prompt_tokens = %(prompt_tokens)s, completion_tokens = %(completion_tokens)s,
        usage = %(usage)s::jsonb, latency_ms = %(latency_ms)s, attempts = %(attempts)s,
        attempt_log = %(attempt_log)s::jsonb, error = %(error)s, fallback = %(fallback)s,
        finished_at = %(finished_at)s
    WHERE id = (SELECT id FROM prior)
    RETURNING simulation_id
)
UPDATE {ModelUsage._meta.db_table} SET
    tokens = tokens + %(tokens)s,
    calls = calls + (SELECT CASE WHEN settled THEN 1 ELSE 0 END FROM prior)
WHERE simulation_id = (SELECT simulation_id FROM done)
"""


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
    fallback: bool = False,
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
    call.fallback = fallback
    call.finished_at = timezone.now()
    with connection.cursor() as cursor:
        cursor.execute(
            _COMPLETE_SQL,
            {
                "id": call.pk,
                "raw_reply": raw_reply,
                "output": None if output is None else json.dumps(output),
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "usage": json.dumps(usage),
                "latency_ms": latency_ms,
                "attempts": call.attempts,
                "attempt_log": json.dumps(attempt_log),
                "error": error,
                "fallback": fallback,
                "finished_at": call.finished_at,
                "tokens": prompt_tokens + completion_tokens,
            },
        )


ABANDONED = "abandoned: its worker stopped before the call ended; not billed"


def model_call_longest_seconds() -> float:
    """The longest a call can be in flight with the current settings: every attempt it may
    make (its retries, its re-asks and two steps down the response format) timing out,
    after the longest backoff before each retry."""
    attempts = settings.SMALLVILLE_LLM_MAX_RETRIES + settings.SMALLVILLE_LLM_MAX_REASKS + 3
    backoff = settings.SMALLVILLE_LLM_BACKOFF_MAX * settings.SMALLVILLE_LLM_MAX_RETRIES
    return float(settings.SMALLVILLE_LLM_TIMEOUT * attempts + backoff)


# Settlement is one statement: finish the calls in flight for longer than a call can take
# and take their count back from their simulations' usage (their tokens were never added).
_SETTLE_SQL = f"""
WITH abandoned AS (
    UPDATE {ModelCall._meta.db_table} SET
        error = %(error)s, finished_at = now(),
        attempt_log = jsonb_build_array(jsonb_build_object('outcome', 'abandoned'))
    WHERE finished_at IS NULL AND created_at < now() - %(older_than)s * interval '1 second'
    RETURNING id, simulation_id
), taken AS (
    UPDATE {ModelUsage._meta.db_table} AS u SET calls = u.calls - a.n
    FROM (
        SELECT simulation_id, count(*) AS n FROM abandoned
        WHERE simulation_id IS NOT NULL GROUP BY simulation_id
    ) AS a
    WHERE u.simulation_id = a.simulation_id
)
SELECT id FROM abandoned ORDER BY id
"""


def model_calls_settle_abandoned(*, older_than: float | None = None) -> list[int]:
    """Finish the calls still in flight `older_than` seconds after their admission (default:
    the longest a call can take): their process died before completing them. They are
    marked `ABANDONED` and not billed (their count is taken back from the simulation's
    usage). A call that does end after all is billed by its completion. Returns their ids."""
    bound = model_call_longest_seconds() if older_than is None else older_than
    with connection.cursor() as cursor:
        cursor.execute(_SETTLE_SQL, {"error": ABANDONED, "older_than": bound})
        return [row[0] for row in cursor.fetchall()]


def _exhausted_reason(sim: Simulation, usage: ModelUsage) -> str:
    spent = []
    if sim.budget_calls is not None and usage.calls >= sim.budget_calls:
        spent.append(f"{usage.calls} of {sim.budget_calls} model calls")
    if sim.budget_tokens is not None and usage.tokens >= sim.budget_tokens:
        spent.append(f"{usage.tokens} of {sim.budget_tokens} tokens")
    return "model budget exhausted: used " + " and ".join(spent)
