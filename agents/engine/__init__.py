"""The tick engine: run control, agent steps into staged decisions, and the tick commit.

A run is claimed by a conditional update (`idle|paused|failed -> running`), so concurrent
requests cannot start two chains of ticks. Tick t of a simulation (docs/architecture.md):

1. `tick_start` (steps.py) splits the agents into shards; each shard is one agent-step
   unit of work (run here when there is only one shard, saving two broker round trips).
2. `agent_steps` reads the state committed at t, asks cognition for each agent's events
   and stages them as decisions (agents.decisions); the shard that sees every decision
   of step t stored asks for the commit.
3. `tick_commit` (commit.py) takes the simulation row lock, checks the step is still t,
   applies the commit rules in their order (rules.py), appends the events plus
   `simulation.stepped`, and hands on the next tick when the transaction commits.

Work is handed on through `agents.dispatch`; every task re-reads the database and checks
`status` and `step` first, so a duplicate or a late task finds nothing to do.
"""

from __future__ import annotations

from .commit import tick_commit
from .failures import run_fails_on_error
from .inline import simulation_run_inline
from .run import (
    Progress,
    RunConflict,
    RunRefused,
    TickDeferred,
    simulation_pause,
    simulation_progress,
    simulation_resume,
    simulation_run,
    steps_to_target,
    target_step_for,
)
from .steps import agent_steps, simulation_fail, tick_start
from .watchdog import runs_resume_stalled

__all__ = [
    "Progress",
    "RunConflict",
    "RunRefused",
    "TickDeferred",
    "agent_steps",
    "run_fails_on_error",
    "runs_resume_stalled",
    "simulation_fail",
    "simulation_pause",
    "simulation_progress",
    "simulation_resume",
    "simulation_run",
    "simulation_run_inline",
    "steps_to_target",
    "target_step_for",
    "tick_commit",
    "tick_start",
]
