"""Running a simulation: run control (claim, pause, resume, progress), the engine chosen for
each tick (choice.py: the barrier, barrier/, or the engine that runs residents ahead,
ahead/), what both share of deciding (decide.py), failures, the in-process broker
(inline.py) and the watchdog.

A run is claimed by a conditional update (`idle|paused|failed -> running`), so concurrent
requests cannot start two chains of ticks. Work is handed on through `runtime.dispatch`;
every unit of work re-reads the database and checks `status` and `step` first, so a
duplicate or a late one finds nothing to do.
"""

from __future__ import annotations

from runtime.engine.choice import engine_tick
from runtime.engine.decide import simulation_fail
from runtime.engine.failures import run_fails_on_error
from runtime.engine.inline import simulation_run_inline
from runtime.engine.run import (
    Progress,
    RunConflict,
    RunRefused,
    TickDeferred,
    simulation_delete,
    simulation_pause,
    simulation_progress,
    simulation_resume,
    simulation_run,
    steps_to_target,
    target_step_for,
)
from runtime.engine.watchdog import runs_resume_stalled

__all__ = [
    "Progress",
    "RunConflict",
    "RunRefused",
    "TickDeferred",
    "engine_tick",
    "run_fails_on_error",
    "runs_resume_stalled",
    "simulation_delete",
    "simulation_fail",
    "simulation_pause",
    "simulation_progress",
    "simulation_resume",
    "simulation_run",
    "simulation_run_inline",
    "steps_to_target",
    "target_step_for",
]
