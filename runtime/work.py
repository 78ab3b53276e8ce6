"""Each unit of work of `runtime.dispatch` to the service that does it: the one table the
Celery tasks (runtime/tasks.py) and the inline broker (runtime/engine/inline.py) share."""

from __future__ import annotations

from runtime.dispatch import AgentSteps, GroupDecide, Reflect, Tick, TickCommit, Work
from runtime.engine.ahead.spread import group_decide
from runtime.engine.barrier import agent_steps, tick_commit
from runtime.engine.choice import engine_tick
from runtime.reflections import reflection_job_run_inline


def work_run(work: Work, *, redelivered: bool = False) -> None:
    """Do `work` here; `redelivered` when the broker delivers it again (its first worker
    died before finishing it)."""
    match work:
        case Tick(simulation_id, step):
            engine_tick(simulation_id=simulation_id, step=step, redelivered=redelivered)
        case AgentSteps(simulation_id, step, names):
            agent_steps(simulation_id=simulation_id, step=step, names=names)
        case TickCommit(simulation_id, step, later):
            tick_commit(
                simulation_id=simulation_id, step=step, redelivered=redelivered, retrying=later
            )
        case GroupDecide(simulation_id, token, step, names):
            group_decide(simulation_id=simulation_id, token=token, step=step, names=names)
        case Reflect(job_id):
            reflection_job_run_inline(job_id)
