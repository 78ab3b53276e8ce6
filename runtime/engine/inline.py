"""Running a simulation in this process, no broker or worker: tests, debugging, baselines."""

from __future__ import annotations

import logging
import time
from collections import deque
from datetime import datetime

from django.db import close_old_connections

from runtime.dispatch import Tick, TickCommit, Work, broker_used
from runtime.engine.failures import TRANSIENT
from runtime.engine.run import KEPT, PaceKept, simulation_run
from runtime.leases import lease_held, simulation_lease
from runtime.work import work_run
from world.models import Simulation

log = logging.getLogger(__name__)

_RESENDS = 8  # a work item's attempts after a transient failure, 0.5 s to 8 s apart


class InlineBroker:
    """Queues the work it is given; `drain` runs it here, in order, until none is left."""

    def __init__(self) -> None:
        self.pending: deque[Work] = deque()

    def send(self, work: Work) -> None:
        self.pending.append(work)

    def drain(self) -> None:
        while self.pending:
            work = self.pending.popleft()
            for attempt in range(_RESENDS + 1):
                try:
                    self._run(work)
                    break
                except TRANSIENT as exc:  # the database or cache is away for a moment
                    if attempt == _RESENDS:
                        raise
                    # As a worker's broker delivers it again: decisions stored are kept.
                    log.warning("%s failed (%r); running it again", work, exc)
                    time.sleep(min(8.0, 0.5 * 2**attempt))
                    close_old_connections()  # a connection the failure broke is opened anew

    @staticmethod
    def _run(work: Work) -> None:
        if isinstance(work, TickCommit) and work.later:
            time.sleep(0.05)  # let the work the commit waits for go on
        if isinstance(work, Tick) and work.not_before:
            time.sleep(max(0.0, work.not_before - time.time()))  # a paced run's next step
        work_run(work)


def simulation_run_inline(
    *,
    simulation: Simulation,
    steps: int | None = None,
    until: datetime | None = None,
    pace: float | PaceKept | None = KEPT,
    pace_alone: str | None = None,
) -> Simulation:
    """Run to the target in this process; the work the run hands on goes to a local queue
    (this thread only), so a worker serving the same broker is not involved, and this
    process holds the run's lease, so no worker's watchdog takes the run for a lost one."""
    inline = InlineBroker()
    with broker_used(inline), lease_held(simulation_lease(simulation.pk)):
        simulation_run(
            simulation=simulation, steps=steps, until=until, pace=pace, pace_alone=pace_alone
        )
        inline.drain()
    simulation.refresh_from_db()
    return simulation
