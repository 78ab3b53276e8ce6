"""The engine a simulation's ticks run on, chosen once for each tick: the one that
`SMALLVILLE_ENGINE` names, or the engine that runs residents ahead while residents of the
simulation still stand ahead of its log (a run of it stopped before they all reached one
step: only it can bring them back to one step).

Each engine is named here by its module path, so deleting an engine's package means
deleting its line; neither engine imports the other.
"""

from __future__ import annotations

import time
from typing import Protocol

from django.conf import settings
from django.utils.module_loading import import_string

from runtime.dispatch import Tick, send
from runtime.models import StagedCommit
from runtime.pace import RESEND_SECONDS, pace_pause_if_alone, pace_wait
from world.models import Simulation, SimulationStatus

ENGINES = {
    "barrier": "runtime.engine.barrier.BARRIER",
    "ahead": "runtime.engine.ahead.AHEAD",
}


class Engine(Protocol):
    name: str

    def tick(self, *, simulation_id: int, step: int, redelivered: bool = False) -> None:
        """Take the simulation on from `step`, the step its log ends at."""


def engine_named(name: str) -> Engine:
    if name not in ENGINES:
        raise ValueError(f"SMALLVILLE_ENGINE: unknown engine {name!r}; one of {sorted(ENGINES)}")
    engine: Engine = import_string(ENGINES[name])
    return engine


def staged_steps(*, simulation_id: int) -> bool:
    """Whether residents of the simulation stand ahead of its log."""
    return StagedCommit.objects.filter(simulation_id=simulation_id).exists()


def engine_for(*, simulation_id: int) -> Engine:
    if staged_steps(simulation_id=simulation_id):
        return engine_named("ahead")
    return engine_named(settings.SMALLVILLE_ENGINE)


def engine_tick(*, simulation_id: int, step: int, redelivered: bool = False) -> None:
    """The tick of step `step` on the simulation's engine; a paced run's tick that comes
    before its time is sent again for then (runtime/pace.py)."""
    simulation = Simulation.objects.filter(pk=simulation_id).first()
    if simulation is not None and simulation.pace and simulation.status == SimulationStatus.RUNNING:
        if pace_pause_if_alone(simulation):
            return
        wait = pace_wait(simulation, step)
        if wait > 0:
            send(Tick(simulation_id, step, not_before=time.time() + min(wait, RESEND_SECONDS)))
            return
    engine_for(simulation_id=simulation_id).tick(
        simulation_id=simulation_id, step=step, redelivered=redelivered
    )
