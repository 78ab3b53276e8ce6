"""Answering the evaluation's interviews: a resident answers through the interview prompt
task (the one `POST .../interview/` uses) from what it recalls under a condition.

Reads only: an evaluation asks, it does not happen to the residents, so no event is
appended and no memory is touched (the user's interview path touches what it retrieves
and logs the exchange). Every answer is one `llm_run`, in the ledger, within the
simulation's budget.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from agents.selectors import plan_told
from agents.tasks.interview import INTERVIEW
from llm.inputs import agent_identity
from llm.port import llm_run
from memories.models import Memory, MemoryKind
from runtime.controls.voice import INTERVIEW_CANDIDATES, INTERVIEW_MEMORIES, interview_recall
from world.models import Agent, Simulation

from .conditions import HIDDEN, Condition, condition_memories

INTERVIEWER = "an interviewer"


@dataclass(frozen=True)
class Answer:
    text: str
    memories: list[int]  # the numbers of the memories it recalled, best first


def _ask(
    *,
    simulation: Simulation,
    agent: Agent,
    question: str,
    memories: Sequence[Memory],
    at: datetime,
    plan: Sequence[str] = (),
) -> Answer:
    answer = llm_run(
        task=INTERVIEW,
        inputs={
            "agent_name": agent.name,
            "summary": agent.summary or agent_identity(agent),
            "time": at.strftime("%B %d, %Y, %H:%M"),
            "persona": INTERVIEWER,
            "memories": [f"{i}. {m.description}" for i, m in enumerate(memories, 1)] or ["none"],
            "plan": list(plan) or ["none"],
            "dialogue": ["(nothing yet)"],
            "question": question,
        },
        simulation=simulation,
        agent=agent,
        shared=False,  # each condition's answer, and each ranking, is a draw of its own
    ).answer
    return Answer(answer, [m.number for m in memories])


def interview_answer(
    *, simulation: Simulation, agent: Agent, condition: Condition, question: str
) -> Answer:
    """The agent's answer now, recalling what `condition` leaves it."""
    retrieved = condition_memories(
        simulation=simulation,
        agent=agent,
        condition=condition,
        query=question,
        k=INTERVIEW_CANDIDATES,
    )
    recalled = interview_recall(retrieved, question=question, name=agent.name)
    hidden = HIDDEN[condition]
    planned = hidden is not None and MemoryKind.PLAN not in hidden  # its plan, unless ablated
    return _ask(
        simulation=simulation,
        agent=agent,
        question=question,
        memories=recalled,
        at=simulation.sim_time,
        plan=plan_told(agent=agent, now=simulation.sim_time) if planned else (),
    )


def start_answer(*, simulation: Simulation, agent: Agent, question: str, about: str) -> Answer:
    """The agent's answer at the start: it recalls only its seed memories (those of the
    start's sim time), the ones naming `about` first, then the most important."""
    seeds = Memory.objects.filter(agent=agent, created__lte=simulation.start_time)
    ranked = sorted(seeds, key=lambda m: (about not in m.description, -m.importance, m.number))
    return _ask(
        simulation=simulation,
        agent=agent,
        question=question,
        memories=ranked[:INTERVIEW_MEMORIES],
        at=simulation.start_time,
    )
