"""Deciding a run's groups in this process (runtime/engine/ahead/run.py): each group from
its own residents as committed, with what every group reads of the town and of its
residents' commitments and ratings, read once for all the groups started together (what
one group can see, no other changes before its step: the rule)."""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

from agents.cognition import Cognition, StepContext
from runtime.engine.ahead.schedule import Resident
from runtime.engine.ahead.state import CommittedState, KeptReads
from runtime.engine.decide import Decision, decide_one
from world.models import Agent, Simulation, Town


@dataclass
class GroupWork:
    """A group of residents at one step, and its decisions as they come in."""

    step: int
    residents: list[Resident]
    decisions: dict[str, Future[Decision]] = field(default_factory=dict)
    agents: dict[str, Agent] = field(default_factory=dict)  # as they were decided from
    not_before: float = 0.0  # a retry waits until then
    token: str = ""  # sent to the workers under this name (spread.py)
    stored: bool = False  # its decisions came from a worker's row (embedded there)


def groups_decide(
    works: list[GroupWork],
    *,
    simulation: Simulation,
    town: Town,
    state: CommittedState,
    cognition: Cognition,
    pool: ThreadPoolExecutor | None,
) -> None:
    """Start each group's decisions: in `pool`, or one after another here without one
    (offline decisions cost microseconds of waiting)."""
    if not works:
        return
    agents = {name: a for work in works for name, a in work.agents.items()}
    nows = {r.name: simulation.sim_time_at(w.step) for w in works for r in w.residents}
    commitments = state.commitments(agents, nows)
    reads = KeptReads(
        state.setters(), commitments, state.unrated(agents), state.cited(agents, commitments)
    )
    for work in works:
        context = StepContext(
            simulation=simulation, town=town, step=work.step, agents=work.agents, reads=reads
        )
        for r in work.residents:
            if pool is None:
                done: Future[Decision] = Future()
                done.set_result(decide_one(cognition, context, r.name))
                work.decisions[r.name] = done
            else:
                work.decisions[r.name] = pool.submit(decide_one, cognition, context, r.name)
