"""A run's pace: a set ratio of sim time to wall time (`Simulation.pace`, sim seconds per
wall second), for people in the town, who would otherwise find ten sim minutes gone
before their line is answered.

The run keeps to a schedule counted from a step and a wall time (`pace_from_step`,
`pace_from_at`, set when the run is claimed): the step after it is decided at once, each
later one no sooner than one step's sim seconds divided by the pace after the one
before. A step that takes longer makes the next ones start at once until the run is
back on its schedule, so the ratio holds over the run. While nobody is in the town (no
present resident a user controls) the run does what `pace_alone` says: keeps its pace,
runs as fast as it can (its schedule starts again from where it stands when someone
comes back) or pauses.

Both engines ask here: the barrier before each tick (a tick that comes early is sent
again for its time, so a duplicate or a watchdog's resend never runs ahead either), the
engine that runs residents ahead before it lets any of them past the step due."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.utils import timezone

from world.models import Agent, PaceAlone, Simulation, SimulationStatus
from world.services import simulation_set_status

# The fastest pace a user may set (a 10 s step every millisecond) and the slowest
# (a 10 s step a day).
PACE_MIN = 10 / 86_400
PACE_MAX = 10_000.0
ALONE_REASON = "paused: nobody is in the town (pace_alone is pause)"
# A tick sent for later waits in its broker at most this long, then looks again: a message
# held past the broker's visibility timeout (SMALLVILLE_VISIBILITY_TIMEOUT, 600 s) would
# be delivered a second time.
RESEND_SECONDS = 60.0
STATUS_SECONDS = 0.25  # a paced run waiting for its next step looks at its status this often


def people_in(simulation: Simulation) -> bool:
    """Whether a user controls a resident present in the town."""
    return Agent.present.filter(simulation=simulation, user_controlled=True).exists()


@dataclass(frozen=True)
class Pace:
    """A run's schedule now: one step every `interval` wall seconds from `from_step` at
    `from_at`; or none (`interval` None: as fast as it can)."""

    interval: float | None
    from_step: int = 0
    from_at: datetime | None = None
    pause: bool = False  # nobody is in the town and the run pauses then

    def due_at(self, step: int) -> datetime | None:
        """When the tick at `step` (which decides step + 1) may start; None: at once."""
        if self.interval is None or self.from_at is None:
            return None
        return self.from_at + timedelta(seconds=max(0, step - self.from_step) * self.interval)

    def wait(self, step: int, now: datetime | None = None) -> float:
        """Seconds until the tick at `step` may start (0: now)."""
        due = self.due_at(step)
        if due is None:
            return 0.0
        return max(0.0, (due - (now or timezone.now())).total_seconds())

    def limit(self, now: datetime | None = None) -> int | None:
        """The furthest step a resident may stand at now (decided); None: no limit."""
        if self.interval is None or self.from_at is None:
            return None
        elapsed = max(0.0, ((now or timezone.now()) - self.from_at).total_seconds())
        return self.from_step + 1 + math.floor(elapsed / self.interval)


def pace_of(simulation: Simulation, people: bool | None = None) -> Pace:
    """The simulation's schedule as it stands (`people`: whether anyone is in the town,
    looked up when not given)."""
    if not simulation.pace or simulation.pace_from_at is None:
        return Pace(None)
    alone = simulation.pace_alone != PaceAlone.KEEP and not (
        people_in(simulation) if people is None else people
    )
    if alone:
        return Pace(None, pause=simulation.pace_alone == PaceAlone.PAUSE)
    return Pace(
        simulation.sec_per_step / simulation.pace,
        simulation.pace_from_step or 0,
        simulation.pace_from_at,
    )


def pace_restart(simulation: Simulation, step: int) -> Pace:
    """Count the schedule again from `step`, now: after the run went as fast as it could
    while nobody was in the town, it would otherwise stand far ahead of it."""
    now = timezone.now()
    Simulation.objects.filter(pk=simulation.pk).update(pace_from_step=step, pace_from_at=now)
    simulation.pace_from_step, simulation.pace_from_at = step, now
    return pace_of(simulation, people=True)


def pace_wait(simulation: Simulation, step: int) -> float:
    """Seconds until the simulation's tick at `step` may start. A run whose log stands more
    than a step ahead of its schedule (it ran fast while nobody was there) restarts the
    schedule from there; a tick for a later step than the log's waits for its own time."""
    pace = pace_of(simulation)
    if pace.interval is not None and pace.wait(simulation.step) > pace.interval:
        pace = pace_restart(simulation, simulation.step)
    return pace.wait(step)


def pace_pause_if_alone(simulation: Simulation) -> bool:
    """Pause the running simulation if its pace says so while nobody is in the town."""
    if not (simulation.pace and simulation.pace_alone == PaceAlone.PAUSE):
        return False
    if not pace_of(simulation).pause:
        return False
    return simulation_set_status(
        simulation=simulation,
        status=SimulationStatus.PAUSED,
        reason=ALONE_REASON,
        expected=[SimulationStatus.RUNNING],
    )


class PaceKeeper:
    """The pace of a run in progress (the engine that runs residents ahead), looked at
    again with each read of the run's status, not at every turn of its loop."""

    def __init__(self) -> None:
        self.pace = Pace(None)
        self._read_at: float | None = None

    def limit(
        self, simulation: Simulation, status: str, steps: list[int], read_at: float
    ) -> int | None:
        """The furthest step a resident may stand at now (None: no pace, or not running);
        `steps` where the residents stand, `read_at` when the status was read. A run
        nobody is in may be paused here (`pace_pause_if_alone`)."""
        if not simulation.pace or status != SimulationStatus.RUNNING:
            return None
        nearest = min(steps)
        if read_at != self._read_at:
            self._read_at = read_at
            pace_pause_if_alone(simulation)
            self.pace = pace_of(simulation)
            limit = self.pace.limit()
            if limit is not None and limit < nearest:
                self.pace = pace_restart(simulation, nearest)  # it ran fast while alone
        return self.pace.limit()

    def sleep_for(self, step: int) -> float:
        """How long to wait, everyone standing at `step`, the step the pace has come to:
        until the next one's time, or less, to see a pause or a stop in time."""
        return min(STATUS_SECONDS, max(0.001, self.pace.wait(step)))
