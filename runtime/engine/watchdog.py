"""The watchdog's service: resume running simulations whose tick was lost."""

from __future__ import annotations

import logging
from datetime import timedelta

from django.core.cache import cache
from django.db.models import OuterRef, Q, Subquery
from django.utils import timezone

from runtime.dispatch import Tick, send
from runtime.leases import leases_alive, simulation_lease
from runtime.models import Decision
from runtime.pace import pace_of
from world.models import Event, Simulation, SimulationStatus

log = logging.getLogger(__name__)


def runs_resume_stalled(*, stall_seconds: float) -> list[int]:
    """Send the tick again of every running simulation that made no progress (no event, no
    stored decision) for `stall_seconds` and whose work no worker holds (its lease lapsed):
    its tick was lost, or its worker died; not a paced run whose next step is not due
    yet (runtime/pace.py). Once per stalled step and stall period, by
    whichever worker's watchdog gets there first; a duplicate tick finds its work done."""
    cutoff = timezone.now() - timedelta(seconds=stall_seconds)
    newest_event = Event.objects.filter(simulation=OuterRef("pk")).order_by("-seq")
    newest_decision = Decision.objects.filter(simulation=OuterRef("pk")).order_by("-created_at")
    rows = (
        Simulation.objects.filter(status=SimulationStatus.RUNNING, run_started_at__lt=cutoff)
        .annotate(
            event_at=Subquery(newest_event.values("created_at")[:1]),
            decided_at=Subquery(newest_decision.values("created_at")[:1]),
        )
        .filter(Q(event_at__isnull=True) | Q(event_at__lt=cutoff))
        .filter(Q(decided_at__isnull=True) | Q(decided_at__lt=cutoff))
        .values_list("pk", "step")
    )
    stalled = list(rows)
    held = leases_alive([simulation_lease(pk) for pk, _ in stalled])
    resent = []
    waiting = {
        simulation.pk
        for simulation in Simulation.objects.filter(
            pk__in=[pk for pk, _ in stalled], pace__isnull=False
        )
        if pace_of(simulation).wait(simulation.step) > 0
    }
    for simulation_id, step in stalled:
        if simulation_lease(simulation_id) in held or simulation_id in waiting:
            continue  # a worker is on it (a slow model call, a long reflection wait)
        key = f"smallville:stalled:{simulation_id}:{step}"
        if cache.add(key, 1, timeout=max(1, int(stall_seconds))):
            log.warning(
                "simulation %s: no progress at step %s; its tick sent again", simulation_id, step
            )
            send(Tick(simulation_id, step))
            resent.append(simulation_id)
    return resent
