"""Writes of the ledger: admit a call against the simulation's budget, then complete it.

Each write is one statement, and the port calls them outside any caller transaction
(`ModelCallInTransaction`), so a ledger row with its usage count, a call's outcome and a
`budget_exhausted` status are committed the moment they happen, whatever the caller does
next. A call costs two round trips to the database.

A call whose process died in flight is settled by the watchdog (llm/settlement.py), so
the ledger bills only calls that ended. A call's `key` makes identical calls one
(llm/answers.py).
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import psycopg
from django.db import OperationalError, connection
from django.utils import timezone

from world.models import Agent, Simulation, SimulationStatus
from world.services import simulation_set_status

from .errors import BudgetExhausted
from .models import ModelCall, ModelUsage
from .quotas import model_quota_check

_STOPPABLE = (SimulationStatus.IDLE, SimulationStatus.RUNNING, SimulationStatus.PAUSED)


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
    holder: str = "",
) -> ModelCall:
    """Count a call against the budget and record it as in flight: a call no other call
    shares (an embedding); see `model_call_claim`."""
    call = model_call_claim(
        simulation=simulation,
        agent=agent,
        task=task,
        backend=backend,
        model=model,
        prompt=prompt,
        priority=priority,
        step=step,
        decider=decider,
        holder=holder,
    )
    assert call is not None  # without a key, no call is the same as another
    return call


def model_call_claim(
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
    key: str = "",
    holder: str = "",
    ahead: bool = False,
    profile_id: int | None = None,
) -> ModelCall | None:
    """Count a call against the budget and record it as in flight; None when a call with
    the same `key` is in flight or answered in the simulation (take its answer instead:
    llm/answers.py).

    Raises BudgetExhausted, after committing the simulation's `budget_exhausted` status,
    when the simulation has no calls or tokens left. The check locks the usage row
    (`calls < budget`) in the statement that writes the ledger row: concurrent workers
    serialise on that row for one statement, and exactly `budget_calls` calls get through.
    The ledger's unique key decides between identical calls admitted at once: one row is
    written (and counted), the others find it.
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
        key=key if simulation is not None else "",
        shared=bool(key) and simulation is not None,
        holder=holder,
        ahead=ahead,
        profile_id=profile_id,
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
                    "key": call.key,
                    "shared": call.shared,
                    "holder": holder,
                    "ahead": ahead,
                    "profile": profile_id,
                },
            )
            allowed, *admitted = cursor.fetchone()
        if allowed and admitted[0] is None:
            return None  # the same call is in flight or answered: not counted
        if allowed:
            call.pk, call.step, call.sim_time, call.created_at = admitted
            call._state.adding = False
            call._state.db = "default"
            return call
        if (
            call.shared
            and ModelCall.objects.filter(
                simulation_id=simulation.pk, key=call.key, shared=True
            ).exists()
        ):
            return None  # a spent budget still lets a call take an answer it paid for
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


# Admission is one statement: lock the usage row if the budget has room, write the ledger
# row unless an identical call is in flight or answered (the unique key), and count the
# call only if its row was written. It returns whether the budget had room, and the row.
_ADMIT_SQL = f"""
WITH allowed AS (
    SELECT COALESCE(%(step)s::int, s.step) AS step,
        s.start_time + COALESCE(%(step)s::int, s.step) * s.sec_per_step * interval '1 second'
        AS sim_time
    FROM {ModelUsage._meta.db_table} AS u JOIN {Simulation._meta.db_table} AS s
        ON s.id = u.simulation_id
    WHERE u.simulation_id = %(simulation)s
      AND (s.budget_calls IS NULL OR u.calls < s.budget_calls)
      AND (s.budget_tokens IS NULL OR u.tokens < s.budget_tokens)
      AND (u.budget_money IS NULL OR u.cost < u.budget_money)
    FOR UPDATE OF u
), admitted AS (
    INSERT INTO {ModelCall._meta.db_table} (
        simulation_id, agent_id, agent_name, decider, step, sim_time, task, priority, backend,
        model, prompt, raw_reply, prompt_tokens, completion_tokens, usage, latency_ms,
        attempts, attempt_log, error, fallback, created_at, key, shared, holder, ahead, takes,
        taken_by, profile_id, cost
    )
    SELECT %(simulation)s, %(agent)s, %(agent_name)s, %(decider)s, a.step, a.sim_time,
           %(task)s, %(priority)s, %(backend)s, %(model)s, %(prompt)s, '', 0, 0, '{{}}'::jsonb,
           0, 0, '[]'::jsonb, '', false, now(), %(key)s, %(shared)s, %(holder)s, %(ahead)s, 0,
           '', %(profile)s, 0
    FROM allowed AS a
    ON CONFLICT (simulation_id, key) WHERE shared DO NOTHING
    RETURNING id, step, sim_time, created_at
), counted AS (
    UPDATE {ModelUsage._meta.db_table} SET calls = calls + 1
    WHERE simulation_id = %(simulation)s AND EXISTS (SELECT 1 FROM admitted)
)
SELECT EXISTS (SELECT 1 FROM allowed), a.id, a.step, a.sim_time, a.created_at
FROM (SELECT 1) AS one LEFT JOIN admitted AS a ON true
"""
# Completion is one statement too: the call's outcome and its tokens in the usage row. A
# call settled as abandoned meanwhile (it outlived the bound) is counted again: it ended.
# A call that failed, or was settled, no longer answers identical calls.
# It locks the usage row (an InitPlan) before the call's row, as admission does: an
# admission holding the usage row may wait on an identical call's row being completed.
_COMPLETE_SQL = f"""
WITH usage_row AS MATERIALIZED (
    SELECT simulation_id FROM {ModelUsage._meta.db_table}
    WHERE simulation_id = %(simulation)s FOR UPDATE
), prior AS (
    SELECT id, finished_at IS NOT NULL AS settled FROM {ModelCall._meta.db_table}
    WHERE id = %(id)s AND (SELECT count(*) FROM usage_row) >= 0 FOR UPDATE
), done AS (
    UPDATE {ModelCall._meta.db_table} SET
        raw_reply = %(raw_reply)s, output = %(output)s::jsonb,
        prompt_tokens = %(prompt_tokens)s, completion_tokens = %(completion_tokens)s,
        usage = %(usage)s::jsonb, latency_ms = %(latency_ms)s, attempts = %(attempts)s,
        attempt_log = %(attempt_log)s::jsonb, error = %(error)s, fallback = %(fallback)s,
        finished_at = %(finished_at)s, cost = %(cost)s,
        shared = shared AND %(answered)s AND NOT (SELECT settled FROM prior)
    WHERE id = (SELECT id FROM prior)
    RETURNING simulation_id
)
UPDATE {ModelUsage._meta.db_table} SET
    tokens = tokens + %(tokens)s, cost = cost + %(cost)s,
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
    cost: Decimal = Decimal(0),
) -> None:
    """Record how the call ended and add its tokens and cost to the simulation's usage."""
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
    call.cost = cost
    call.finished_at = timezone.now()
    for attempt in range(_DEADLOCK_RETRIES + 1):
        try:
            _complete(call)
            return
        except OperationalError as exc:
            # A completion outside a transaction is one statement: Postgres chose it to
            # break a deadlock with a commit over the usage row, and it can run again.
            deadlock = isinstance(exc.__cause__, psycopg.errors.DeadlockDetected)
            if not deadlock or connection.in_atomic_block or attempt == _DEADLOCK_RETRIES:
                raise


_DEADLOCK_RETRIES = 3


def _complete(call: ModelCall) -> None:
    """The completion's one statement, from the call's fields as set."""
    with connection.cursor() as cursor:
        cursor.execute(
            _COMPLETE_SQL,
            {
                "id": call.pk,
                "simulation": call.simulation_id,
                "raw_reply": call.raw_reply,
                "output": None if call.output is None else json.dumps(call.output),
                "prompt_tokens": call.prompt_tokens,
                "completion_tokens": call.completion_tokens,
                "usage": json.dumps(call.usage),
                "latency_ms": call.latency_ms,
                "attempts": call.attempts,
                "attempt_log": json.dumps(call.attempt_log),
                "error": call.error,
                "fallback": call.fallback,
                "finished_at": call.finished_at,
                "tokens": call.prompt_tokens + call.completion_tokens,
                "answered": call.output is not None,
                "cost": call.cost,
            },
        )


def model_call_take(*, call_id: int, step: int | None, decider: str) -> None:
    """Record that a later identical call took the answer of `call_id` (the first taker's
    step and resident, and how many took it)."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"""UPDATE {ModelCall._meta.db_table} SET takes = takes + 1,
                taken_step = CASE WHEN taken_at IS NOT NULL THEN taken_step
                    ELSE COALESCE(%(step)s::int, (SELECT s.step FROM {Simulation._meta.db_table}
                        AS s WHERE s.id = simulation_id)) END,
                taken_by = CASE WHEN taken_at IS NULL THEN %(decider)s ELSE taken_by END,
                taken_at = COALESCE(taken_at, now())
            WHERE id = %(id)s""",
            {"id": call_id, "step": step, "decider": decider},
        )


def _exhausted_reason(sim: Simulation, usage: ModelUsage) -> str:
    spent = []
    if sim.budget_calls is not None and usage.calls >= sim.budget_calls:
        spent.append(f"{usage.calls} of {sim.budget_calls} model calls")
    if sim.budget_tokens is not None and usage.tokens >= sim.budget_tokens:
        spent.append(f"{usage.tokens} of {sim.budget_tokens} tokens")
    if usage.budget_money is not None and usage.cost >= usage.budget_money:
        spent.append(f"{usage.cost:.4f} of {usage.budget_money} in money")
    return "model budget exhausted: used " + " and ".join(spent)


def model_budget_money_set(*, simulation: Simulation, money: Decimal | None) -> ModelUsage:
    """Stop the simulation's calls once they have cost `money` (None: no money budget)."""
    ModelUsage.objects.bulk_create([ModelUsage(simulation_id=simulation.pk)], ignore_conflicts=True)
    ModelUsage.objects.filter(simulation_id=simulation.pk).update(budget_money=money)
    return ModelUsage.objects.get(simulation_id=simulation.pk)
