"""Writes on simulations that are not events: run status and its reason."""

from __future__ import annotations

from collections.abc import Iterable

from .models import Simulation, SimulationStatus


def simulation_set_status(
    *,
    simulation: Simulation,
    status: SimulationStatus,
    reason: str = "",
    expected: Iterable[SimulationStatus] | None = None,
) -> bool:
    """Set the status by conditional update; False when `expected` did not hold (lost race).

    Runs outside any caller transaction's fate only if the caller commits; callers that
    must record a stop even when their own work rolls back call it after the rollback.
    """
    rows = Simulation.objects.filter(pk=simulation.pk)
    if expected is not None:
        rows = rows.filter(status__in=list(expected))
    updated = rows.update(status=status, status_reason=reason) == 1
    if updated:
        simulation.status = status
        simulation.status_reason = reason
    return updated
