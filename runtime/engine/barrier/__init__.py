"""The barrier engine (`SMALLVILLE_ENGINE = "barrier"`, the default): every resident decides
step t from the state committed at t, then the town commits step t in one transaction.

1. `tick_start` (steps.py) splits the residents into shards; each shard is one
   agent-step unit of work (decided in the tick's own task when there is one shard).
2. `agent_steps` reads the state committed at t, asks cognition for each resident's
   events and stages them as decisions (runtime.decisions); the shard that sees every
   decision of step t stored asks for the commit.
3. `tick_commit` (commit.py) takes the simulation row lock, checks the step is still t,
   applies the commit rules (runtime.rules), appends the events plus
   `simulation.stepped`, and hands on the next tick when the transaction commits.
"""

from __future__ import annotations

from runtime.engine.barrier.commit import tick_commit
from runtime.engine.barrier.steps import agent_steps, tick_start

__all__ = ["BARRIER", "BarrierEngine", "agent_steps", "tick_commit", "tick_start"]


class BarrierEngine:
    name = "barrier"

    def tick(self, *, simulation_id: int, step: int, redelivered: bool = False) -> None:
        tick_start(simulation_id=simulation_id, step=step, redelivered=redelivered)


BARRIER = BarrierEngine()
