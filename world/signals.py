"""Signals the world sends for the layers above to act on (integration's webhooks): a run
that ended. `world` never imports their receivers."""

from __future__ import annotations

from django.dispatch import Signal

# A run left `running` for good: sent with simulation (world.models.Simulation, status and
# reason set), outcome ("finished", "failed" or "budget_exhausted"). Sent synchronously
# inside the writer's transaction, if any: a receiver's writes commit or roll back with it.
run_ended = Signal()
