"""Writes on simulations that are not events: run status and its reason."""

from __future__ import annotations

from collections.abc import Iterable

from .models import Simulation, SimulationStatus
from .signals import run_ended

# A run that moves into one of these has ended: `run_ended` says how.
RUN_OUTCOMES = {
    SimulationStatus.IDLE: "finished",
    SimulationStatus.FAILED: "failed",
    SimulationStatus.BUDGET_EXHAUSTED: "budget_exhausted",
}


def simulation_set_status(
    *,
    simulation: Simulation,
    status: SimulationStatus,
    reason: str = "",
    expected: Iterable[SimulationStatus] | None = None,
    step_at_most: int | None = None,
) -> bool:
    """Set the status by conditional update; False when `expected` did not hold (lost race),
    or the run has committed past `step_at_most` (a worker reporting on a step another
    has committed since: one cut off from the others for longer than its leases).
    A run that moved from `running` to an end (RUN_OUTCOMES) sends `run_ended`.

    Runs outside any caller transaction's fate only if the caller commits; callers that
    must record a stop even when their own work rolls back call it after the rollback.
    """
    allowed = None if expected is None else list(expected)
    rows = Simulation.objects.filter(pk=simulation.pk)
    if allowed is not None:
        rows = rows.filter(status__in=allowed)
    if step_at_most is not None:
        rows = rows.filter(step__lte=step_at_most)
    outcome = RUN_OUTCOMES.get(status)
    # A running run that ends is told apart by the status its own write found.
    ended = (
        outcome is not None
        and (allowed is None or SimulationStatus.RUNNING in allowed)
        and rows.filter(status=SimulationStatus.RUNNING).update(status=status, status_reason=reason)
        == 1
    )
    updated = ended or rows.update(status=status, status_reason=reason) == 1
    if updated:
        simulation.status = status
        simulation.status_reason = reason
    if ended:
        run_ended.send(sender=Simulation, simulation=simulation, outcome=outcome)
    return updated
