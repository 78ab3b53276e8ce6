"""Importance ratings off the critical path: rated at a fixed later step.

A memory a resident's step makes carries a provisional importance (the lexicon's,
`importance_provisional`) and `rating_due`: its log step plus the simulation's
`importance_delay`. At that step the owner's own step rates its memories due, one
`importance_many` call per due step, and emits `memory.rated`: a fixed step, so replays
and both engines write the same log, and nobody waits for a rating while it is made.

A model that answers over the network is asked ahead: the first step of a resident that
sees memories awaiting their rating sends the call in the background (`llm_send_ahead`),
and the due step takes that answer when its inputs are the ones it would send (same
task, inputs and seed: the same answer), or asks itself (another worker, a crash, a new
day's identity).
With a delay of 0 `recall.remember` rates in the step, as the paper does.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from itertools import groupby
from typing import Any

from agents.cognition.mind import Mind
from agents.tasks.importance_many import IMPORTANCE_MANY
from llm.inputs import agent_identity
from llm.port import llm_run, llm_send_ahead
from memories.events import memory_rated
from memories.selectors import Unrated
from world.models import Agent, Simulation

_SENT_MAX = 16_384  # (simulation, resident, due step) of ratings sent ahead
_sent: OrderedDict[tuple[int, str, int], None] = OrderedDict()
_sent_lock = threading.Lock()


def importance_delay(simulation: Simulation) -> int:
    """Steps between a memory's step and its rating (0 for configs stored before it)."""
    return int(simulation.config.get("importance_delay", 0))


def ratings_apply(mind: Mind) -> None:
    """Rate the resident's memories due by this step and send ahead the ones to come."""
    pending = mind.context.unrated.get(mind.agent.pk, [])
    if not pending:
        return
    for due, batch in groupby(pending, key=lambda u: u.rating_due):
        memories = list(batch)
        if due <= mind.step + 1:  # this step's events are the log's step + 1
            # The call sent ahead for these inputs answers it (llm.ahead), else it is asked.
            inputs = _inputs(mind.agent, [u.description for u in memories])
            scores = _rate(mind.simulation, mind.agent, inputs)
            mind.emit(
                memory_rated(
                    agent=mind.name,
                    numbers=[u.number for u in memories],
                    importance=scores,
                    kinds=[u.kind for u in memories],
                )
            )
        else:  # may go ahead: the model port decides (llm.port.llm_send_ahead)
            _send(mind.simulation, mind.agent, due, memories)


def importance_rate_many(
    simulation: Simulation, agent: Agent, descriptions: list[str]
) -> list[int]:
    """`agent`'s importance of each memory, in one `importance_many` call (a middling 5
    for any the model leaves out)."""
    return _rate(simulation, agent, _inputs(agent, descriptions))


def _inputs(agent: Agent, descriptions: list[str]) -> dict[str, Any]:
    return {
        "agent_name": agent.name,
        "agent_identity": agent_identity(agent),
        "memories": [f"{i}. {d}" for i, d in enumerate(descriptions, 1)],
    }


def _rate(simulation: Simulation, agent: Agent, inputs: dict[str, Any]) -> list[int]:
    rated = llm_run(task=IMPORTANCE_MANY, inputs=inputs, simulation=simulation, agent=agent)
    size = len(inputs["memories"])
    return (rated.importance + [5] * size)[:size]


def _send(simulation: Simulation, agent: Agent, due: int, memories: list[Unrated]) -> None:
    """Send the rating due at `due` in the background, unless it is sent already (its
    inputs are built once, not at every step until it is due)."""
    key = (simulation.pk, agent.name, due)
    with _sent_lock:
        if key in _sent:
            return
        _sent[key] = None
        while len(_sent) > _SENT_MAX:
            _sent.popitem(last=False)
    llm_send_ahead(
        task=IMPORTANCE_MANY,
        inputs=lambda: _inputs(agent, [u.description for u in memories]),
        simulation=simulation,
        agent=agent,
    )
