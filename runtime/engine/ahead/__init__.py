"""The engine that lets residents run ahead of each other (`SMALLVILLE_ENGINE = "ahead"`;
docs/architecture.md, "Residents that do not wait for each other").

The barrier engine decides every resident at step t, then commits the town. Here each
resident keeps its own step, and a *group* (residents at one step near enough to meet)
is decided and committed as soon as nothing it could perceive or touch can still change
under it (the rule: schedule.py). The groups whose decisions are in commit together, in
one transaction (staging.py), which also writes the log of every step all residents
have passed, in the barrier's order; the log therefore equals the barrier engine's for
the same seed. A group whose step decided nothing changes no state: it goes on to its
next step without a commit, and the next commit records where it stands. What the engine
has read of the committed state is kept between rounds and read again only where its own
commits changed it (state.py).

One process runs a simulation's residents (its worker's tick task holds the run, the
claim below); the model calls of many groups are in flight at once, up to
`SMALLVILLE_CALLS_IN_FLIGHT` (run.py). A killed worker leaves staged commits that match
its projections: the watchdog's resent tick starts the run again from them.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.core.cache import cache

from runtime.engine.ahead.run import AheadRun
from runtime.leases import ahead_lease, lease_held
from world.models import Simulation, SimulationStatus

__all__ = ["AHEAD", "AheadEngine", "AheadRun", "ahead_claimed", "ahead_run"]

log = logging.getLogger(__name__)


class AheadEngine:
    name = "ahead"

    def tick(self, *, simulation_id: int, step: int, redelivered: bool = False) -> None:
        ahead_run(simulation_id=simulation_id)


AHEAD = AheadEngine()


@contextmanager
def ahead_claimed(simulation_id: int) -> Iterator[bool]:
    """One process runs a simulation's residents: True for the one that claimed it (a
    redelivered or resent tick finds the claim live and leaves)."""
    key = ahead_lease(simulation_id)
    try:
        claimed = bool(cache.add(key, 1, timeout=settings.SMALLVILLE_LEASE_SECONDS))
    except Exception:
        claimed = True  # no cache: the commits' checks keep a second run harmless
    if not claimed:
        yield False
        return
    try:
        with lease_held(key):
            yield True
    finally:
        try:
            cache.delete(key)
        except Exception:
            log.warning("could not release %s", key)


def ahead_run(*, simulation_id: int) -> AheadRun | None:
    """Run the simulation's residents ahead of each other to its target, in this process."""
    with ahead_claimed(simulation_id) as claimed:
        if not claimed:
            return None
        simulation = Simulation.objects.get(pk=simulation_id)
        if simulation.status != SimulationStatus.RUNNING:
            return None
        run = AheadRun(simulation, furthest_first=settings.SMALLVILLE_AHEAD_ORDER == "ahead")
        run.run()
        return run
