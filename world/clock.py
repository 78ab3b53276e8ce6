"""The simulation clock's reach: the sim times a run can start from and run to."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

# The most steps one run may ask for, and so the furthest a clock runs from its start.
MAX_RUN_STEPS = 1_000_000
EARLIEST = datetime(1900, 1, 1, tzinfo=UTC)
LATEST = datetime(9000, 1, 1, tzinfo=UTC)


class SimTimeOutOfReach(ValueError):
    """A sim time the clock cannot reach (or run from)."""


def sim_time_check(*, start: datetime, sec_per_step: int) -> None:
    """A simulation starting at `start` must be able to run MAX_RUN_STEPS steps."""
    if start.tzinfo is None:
        raise SimTimeOutOfReach("start_time needs a time zone")
    try:
        end = start + timedelta(seconds=MAX_RUN_STEPS * sec_per_step)
    except OverflowError:
        end = datetime.max.replace(tzinfo=UTC)
    if start < EARLIEST or end > LATEST:
        raise SimTimeOutOfReach(
            f"start_time must be from {EARLIEST:%Y-%m-%d} on and leave room for "
            f"{MAX_RUN_STEPS:,} steps before {LATEST:%Y-%m-%d}"
        )
