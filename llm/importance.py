"""The `importance` task: the paper's 1-10 poignancy of a memory, and its offline policy.

The offline policy is a rule-based stand-in, not a model: a lexicon of life events
(death, wedding, break-up, new job, election, fire...) rates high, everyday routine
(sleeping, brushing teeth, eating breakfast, walking, idle objects) rates low, and
anything else gets a middling 3-5 drawn from the call's seeded random generator.
"""

from __future__ import annotations

import random
import re

from pydantic import BaseModel, ConfigDict, Field

from world.models import Agent, Simulation

from .inputs import agent_identity
from .port import llm_run
from .tasks import Inputs, PromptTask, task_register


class Importance(BaseModel):
    """How poignant a memory is to its agent."""

    model_config = ConfigDict(extra="forbid")

    importance: int = Field(ge=1, le=10, description="1 purely mundane .. 10 extremely poignant")


# (score, pattern) in descending score; the first match wins, so life events beat routine
# in "sleeping badly after the funeral".
_LEXICON: list[tuple[int, str]] = [
    (10, r"died|dies|dying|death|dead|funeral|killed|murder\w*|passed away|suicide"),
    (
        9,
        r"wedding|married|marr(?:y|ies)|engaged|engagement|propos(?:ed|es|al)|divorc\w*"
        r"|break(?:s|ing)? up|broke up|breakup|pregnan\w*|gave birth|giving birth|was born"
        r"|accepted (?:in)?to|acceptance letter|admission|fired|laid off|diagnos\w*|cancer"
        r"|hospital\w*|accident|fire|emergency|arrested|robbed",
    ),
    (
        8,
        r"(?:fall|falls|fell|falling|is|are) in love|confess\w*|kiss\w*|new job|hired"
        r"|promot(?:ed|ion)|quit (?:his|her|their|my) job|elect(?:ed|ion|ions)|mayor\w*"
        r"|campaign\w*|moving away|moves? out|graduat\w*|first date|crush",
    ),
    (
        7,
        r"part(?:y|ies)|valentine\w*|celebrat\w*|festival|birthday|anniversary|argu\w*"
        r"|fight\w*|quarrel\w*|exam\w*|interview\w*|audition\w*|competition|concert"
        r"|secret\w*|rumou?rs?|apolog\w*|date with",
    ),
    (
        6,
        r"meeting|invit\w*|news|worried|upset|excited|nervous|angry|sad|lonely|decid\w*"
        r"|research|project|plans? to",
    ),
    (
        1,
        r"sleep\w*|asleep|idle|brush(?:es|ing)? (?:his |her |their |my )?teeth"
        r"|mak(?:e|es|ing) (?:the |his |her |their |my )?bed|wak(?:e|es|ing) up|woke up",
    ),
    (
        2,
        r"shower\w*|bath\w*|breakfast|lunch|dinner|eat(?:s|ing)?|cook\w*|wash\w*|dish(?:es)?"
        r"|clean\w*|walk\w*|commut\w*|getting dressed|gets dressed|morning routine"
        r"|toilet|tidy\w*|rest(?:s|ing)?",
    ),
]
_RULES = [(score, re.compile(rf"\b(?:{pattern})\b", re.IGNORECASE)) for score, pattern in _LEXICON]


def importance_offline(inputs: Inputs, rng: random.Random) -> Importance:
    """The offline stand-in for the model's rating of `inputs["memory"]`."""
    memory = str(inputs["memory"])
    for score, rule in _RULES:
        if rule.search(memory):
            return Importance(importance=score)
    return Importance(importance=rng.randint(3, 5))


def importance_provisional(memory: str) -> int:
    """A memory's importance until the model's rating arrives: the lexicon's score, or a
    middling 4 (no call, no randomness)."""
    for score, rule in _RULES:
        if rule.search(memory):
            return score
    return 4


IMPORTANCE = task_register(
    PromptTask(
        name="importance",
        template="importance.txt",
        output=Importance,
        offline=importance_offline,
        description="the poignancy of a memory, 1 (mundane) to 10 (life-changing)",
    )
)


def importance_rate(*, agent: Agent, memory: str, simulation: Simulation | None = None) -> int:
    """The importance of a new memory of `agent`, through the configured backend (an agent
    not yet created, a newcomer's seed, is not named on the ledger)."""
    result = llm_run(
        task=IMPORTANCE,
        inputs={
            "agent_name": agent.name,
            "agent_identity": agent_identity(agent),
            "memory": memory,
        },
        simulation=simulation,
        agent=agent if agent.pk else None,
    )
    return result.importance
