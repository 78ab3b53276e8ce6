"""Steps as the outside sees them: counted in the service's metrics (kernel/metrics.py)
once their transaction commits. A step's seconds are the wall time since the run's
previous commit seen by this process (an ahead run commits in one process; a barrier run
spread over workers is sampled where one worker committed two steps in a row)."""

from __future__ import annotations

import logging
import threading
import time

from django.db import transaction

from kernel.metrics import STEP_SECONDS, STEPS_COMMITTED

log = logging.getLogger(__name__)
_last: dict[int, tuple[int, float]] = {}  # simulation id -> (step committed, when)
_lock = threading.Lock()


def steps_committed(*, engine: str, simulation_id: int, first: int, until: int) -> None:
    """Steps `first` .. `until - 1` are committed with the caller's transaction."""
    if until <= first:
        return

    def count() -> None:
        now = time.monotonic()
        with _lock:
            before = _last.get(simulation_id)
            _last[simulation_id] = (until, now)
            if len(_last) > 10_000:  # runs long over
                _last.pop(next(iter(_last)))
        STEPS_COMMITTED.labels(engine).inc(until - first)
        log.info("committed step %d (%s engine)", until - 1, engine)
        if before is not None and before[0] == first:
            each = (now - before[1]) / (until - first)
            for _ in range(until - first):
                STEP_SECONDS.labels(engine).observe(each)

    transaction.on_commit(count)
