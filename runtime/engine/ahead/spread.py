"""One simulation across several workers (`SMALLVILLE_AHEAD_SPREAD`; docs/architecture.md,
"One simulation across several workers"): the groups of the engine that runs residents
ahead, decided by whichever worker is free.

The run (run.py) stays in one process: it schedules the groups and commits them, as it
does alone. With spread on, each group it starts goes to the deployment's workers as a
unit of work (`GroupDecide`) under a token of its own. The worker that takes it claims
the group's lease, decides each resident from the state committed at the group's step,
embeds the memories made, and stores the decisions as one `GroupDecision` row. Nothing
another group commits meanwhile is within the group's reach (the rule, schedule.py), so
the worker reads what the run would have read; the run commits the row as its own
decision, and the log stays the barrier's.

A group no worker has claimed after `SMALLVILLE_SPREAD_PICKUP_SECONDS`, or whose worker
died (its lease lapsed with no row stored), is claimed and decided by the run's own
process; a worker given it later finds the lease or the row and leaves it. A row is
stored once per token, and a row of a group the run gave up on is never read.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Sequence
from contextlib import ExitStack
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import connection

from agents.cognition import StepContext, cognition_for
from runtime.dispatch import GroupDecide, send
from runtime.engine.decide import Decided, agents_read, decide_embedded
from runtime.leases import group_lease, lease_held
from runtime.models import GroupDecision
from world.eventlog import EventDraft
from world.models import Simulation, SimulationStatus
from world.selectors import town_cached

_STORE_SQL = """
INSERT INTO runtime_groupdecision (simulation_id, token, step, decisions, created_at)
VALUES (%s, %s, %s, %s::jsonb, now())
ON CONFLICT (token) DO NOTHING
"""


def group_token() -> str:
    return uuid.uuid4().hex


def group_claim(token: str) -> bool:
    """Claim the group's lease; False when someone holds it (it is being decided). A
    cache that cannot say lets the claim through: a group decided twice is stored once."""
    try:
        return bool(cache.add(group_lease(token), 1, timeout=settings.SMALLVILLE_LEASE_SECONDS))
    except Exception:
        return True


def group_decide(*, simulation_id: int, token: str, step: int, names: Sequence[str]) -> None:
    """A worker's part: decide the group and store its decisions, unless it is stored,
    claimed by someone else, or the run stopped."""
    if GroupDecision.objects.filter(token=token).exists() or not group_claim(token):
        return
    with lease_held(group_lease(token)):
        simulation = Simulation.objects.filter(pk=simulation_id).first()
        if simulation is None or simulation.status not in (
            SimulationStatus.RUNNING,
            SimulationStatus.PAUSED,
        ):
            return
        simulation.town = town_cached(pk=simulation.town_id)
        agents = {a.name: a for a in agents_read(simulation=simulation, names=names)}
        if set(agents) != set(names):
            return  # a resident left meanwhile: the run starts its groups again
        context = StepContext(simulation=simulation, town=simulation.town, step=step, agents=agents)
        # A transient error propagates: the lease lapses, and the run decides the group.
        made = decide_embedded(simulation, cognition_for(simulation), context, sorted(names))
        if made is None:
            return
        group_store(simulation_id=simulation_id, token=token, step=step, decided=made)


def group_store(*, simulation_id: int, token: str, step: int, decided: Decided) -> None:
    rows = [
        {
            "agent": name,
            "events": [{"kind": d.kind, "agent": d.agent, "payload": d.payload} for d in drafts],
        }
        for name, drafts in decided
    ]
    with connection.cursor() as cursor:
        cursor.execute(_STORE_SQL, [simulation_id, token, step, json.dumps(rows)])


def groups_stored(tokens: Sequence[str]) -> dict[str, Decided]:
    """The decisions stored under these tokens, by token."""
    found: dict[str, Decided] = {}
    rows = GroupDecision.objects.filter(token__in=list(tokens)).values_list("token", "decisions")
    for token, decisions in rows:
        found[token] = [(d["agent"], [_draft(e) for e in d["events"]]) for d in decisions]
    return found


def groups_forget(*, simulation_id: int, tokens: Sequence[str] | None = None) -> None:
    """Drop the rows of these groups (committed or given up), or all of the run's."""
    rows = GroupDecision.objects.filter(simulation_id=simulation_id)
    if tokens is not None:
        rows = rows.filter(token__in=list(tokens))
    rows.delete()


def _draft(event: dict[str, Any]) -> EventDraft:
    return EventDraft(kind=event["kind"], agent=event["agent"], payload=event["payload"])


class Spreading:
    """The run's side: the groups it sent to the workers, and those it took back."""

    def __init__(self, simulation_id: int) -> None:
        self.simulation_id = simulation_id
        self.sent: dict[str, float] = {}  # token -> when it was sent
        self.held: dict[str, ExitStack] = {}  # the leases of groups this process claimed
        groups_forget(simulation_id=simulation_id)  # an earlier run's rows: never read

    def send(self, token: str, step: int, names: Sequence[str]) -> None:
        self.sent[token] = time.monotonic()
        send(GroupDecide(self.simulation_id, token, step, tuple(names)))

    def arrived(self, tokens: Sequence[str]) -> dict[str, Decided]:
        return groups_stored(tokens) if tokens else {}

    def overdue(self, tokens: Sequence[str]) -> list[str]:
        """Of these groups (sent, not stored), those no worker holds after the pickup
        time: claimed here, for this process to decide."""
        now, taken = time.monotonic(), []
        for token in tokens:
            if now - self.sent.get(token, now) < settings.SMALLVILLE_SPREAD_PICKUP_SECONDS:
                continue
            if group_claim(token):
                held = self.held[token] = ExitStack()
                held.enter_context(lease_held(group_lease(token)))
                self.sent.pop(token, None)
                taken.append(token)
        return taken

    def done(self, tokens: Sequence[str]) -> None:
        """The groups are committed or given up: their rows go."""
        for token in tokens:
            self.sent.pop(token, None)
            if token in self.held:
                self.held.pop(token).close()
        if tokens:
            groups_forget(simulation_id=self.simulation_id, tokens=tokens)

    def close(self) -> None:
        for held in self.held.values():
            held.close()
        self.held.clear()
        groups_forget(simulation_id=self.simulation_id)
