"""Staged decisions: each agent's events for a step, stored until the tick commits them.

Keyed (simulation, step, agent), so a redelivered agent-step task finds its row and does
nothing twice. The rows of a shard go in one statement, sent as one JSON parameter.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from django.db import connection

from runtime.models import Decision
from world.models import Simulation, SimulationStatus

_DECISIONS_SQL = """
INSERT INTO runtime_decision (simulation_id, step, agent, events, created_at)
SELECT %s, %s, d.agent, d.events, now()
FROM jsonb_to_recordset(%s::jsonb) AS d(agent text, events jsonb)
ON CONFLICT (simulation_id, step, agent) DO NOTHING
"""
_ALL_DECIDED_SQL = """
SELECT (SELECT count(*) FROM runtime_decision d JOIN agents_agent a
         ON a.simulation_id = d.simulation_id AND a.name = d.agent AND a.left_step IS NULL
         WHERE d.simulation_id = %s AND d.step = %s)
     = (SELECT count(*) FROM agents_agent WHERE simulation_id = %s AND left_step IS NULL)
"""


@dataclass(frozen=True)
class Staged:
    """Every agent's decided events, in name order, as of the log ending at `seq`."""

    seq: int
    events: list[list[dict[str, Any]]]


def decisions_store(*, simulation_id: int, step: int, decisions: list[dict[str, object]]) -> None:
    """Store `[{"agent": name, "events": [...]}, ...]`; a decision stored already stays."""
    with connection.cursor() as cursor:
        cursor.execute(_DECISIONS_SQL, [simulation_id, step, json.dumps(decisions)])


def decisions_stored(*, simulation: Simulation, step: int, names: list[str]) -> dict[str, Any]:
    """The stored events of the named agents at `step`, by agent."""
    rows = Decision.objects.filter(simulation=simulation, step=step, agent__in=names)
    return dict(rows.values_list("agent", "events"))


def decisions_stored_names(*, simulation_id: int, step: int) -> list[str]:
    """The agents whose decision for `step` is stored."""
    rows = Decision.objects.filter(simulation_id=simulation_id, step=step)
    return list(rows.values_list("agent", flat=True))


def decisions_all_stored(*, simulation_id: int, step: int) -> bool:
    with connection.cursor() as cursor:
        cursor.execute(_ALL_DECIDED_SQL, [simulation_id, step, simulation_id])
        row = cursor.fetchone()
    return bool(row and row[0])


def decision_stand_still(*, simulation: Simulation, agent: str) -> None:
    """An agent joining a running simulation (read under its row lock) stands still for
    the step in flight: the others' decisions were asked for without it, and the step
    commits once every agent has one."""
    if simulation.status in (SimulationStatus.RUNNING, SimulationStatus.PAUSED):
        decisions_store(
            simulation_id=simulation.pk,
            step=simulation.step,
            decisions=[{"agent": agent, "events": []}],
        )
