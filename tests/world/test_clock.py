"""The clock's reach (world/clock.py): a start must leave room for the longest run."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from world.clock import EARLIEST, LATEST, MAX_RUN_STEPS, SimTimeOutOfReach, sim_time_check


def test_a_start_with_room_for_the_longest_run_is_in_reach() -> None:
    sim_time_check(start=datetime(2031, 5, 4, 6, tzinfo=UTC), sec_per_step=10)
    last = LATEST - timedelta(seconds=MAX_RUN_STEPS * 60)
    sim_time_check(start=last, sec_per_step=60)


@pytest.mark.parametrize(
    ("start", "sec_per_step"),
    [
        (datetime(2031, 5, 4, 6), 10),  # no time zone
        (EARLIEST - timedelta(seconds=1), 10),
        (LATEST - timedelta(seconds=MAX_RUN_STEPS * 60 - 1), 60),
        (datetime(2031, 5, 4, 6, tzinfo=UTC), 10**12),  # past datetime's own calendar
    ],
    ids=["naive", "before-earliest", "no-room-for-the-run", "overflow"],
)
def test_a_start_out_of_reach_is_refused(start: datetime, sec_per_step: int) -> None:
    with pytest.raises(SimTimeOutOfReach):
        sim_time_check(start=start, sec_per_step=sec_per_step)
