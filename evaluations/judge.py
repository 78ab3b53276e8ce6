"""The judge: a prompt task that ranks the conditions' answers to one question by
believability, best first (the paper's human evaluators, section 6.2), and its offline policy.

The offline policy is a rule, NOT a judgement of quality: it prefers the answer that
shares more content words with the resident's own memories shown to the judge (so an
answer that cites what the resident remembers beats "I don't remember"), and breaks ties
by label order, which is a seeded shuffle of the conditions. Its rankings show that the
mechanics work (every call validated and rated), never how believable an answer is.

A model's ranking is mended where it is one step short of whole, as the reference
implementation mends near-miss replies: labels not of this question and repeats are
dropped, and a ranking naming every label but one (at least two) gets the one left out
last. A small model's rankings are mostly such (SmolLM2-135M: "B, C, D", "A, B, A, C");
anything further off is re-asked, then takes the fail-safe answer (the offline rule).
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from agents.offline.key_words import COMMON_WORDS
from llm.inputs import agent_identity
from llm.models import ModelProfile
from llm.port import llm_run
from llm.tasks import Inputs, PromptTask, task_register
from world.models import Agent, Simulation

LABELS = "ABCDEFGH"
_WORD = re.compile(r"[a-z][a-z']{3,}")


class Ranking(BaseModel):
    """The answers' labels, most believable first."""

    model_config = ConfigDict(extra="forbid")

    # One label each: the schema bounds the reply (its token limit is a few dozen) and a
    # grammar engine lets a model write nothing else.
    ranking: list[Literal["A", "B", "C", "D", "E", "F", "G", "H"]] = Field(
        min_length=2, max_length=len(LABELS)
    )


def _labels(inputs: Inputs) -> list[str]:
    return [label.strip() for label in str(inputs["labels"]).split(",")]


def _check(inputs: Inputs, output: Ranking) -> str:
    labels = _labels(inputs)
    if sorted(output.ranking) != sorted(labels):
        return f"the ranking must list each of the labels {', '.join(labels)} exactly once"
    return ""


def _mend(inputs: Inputs, output: Ranking) -> Ranking:
    """The ranking one step short of whole made whole (see the module's docstring); any
    other left as it is, for the check."""
    labels = _labels(inputs)
    named = list(dict.fromkeys(label for label in output.ranking if label in labels))
    missing = [label for label in labels if label not in named]
    if len(named) >= 2 and len(missing) <= 1:
        return Ranking.model_validate({"ranking": [*named, *missing]})
    return output


def _text(value: object) -> str:
    """An input as the prompt shows it: a list is one item a line."""
    return "\n".join(map(str, value)) if isinstance(value, list | tuple) else str(value)


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in COMMON_WORDS}


def judge_offline(inputs: Inputs, rng: random.Random) -> Ranking:
    """More of the resident's memory words in the answer ranks higher; label order on ties."""
    remembered = _words(_text(inputs["memories"]))
    answers = {
        line[0]: line[3:]
        for line in _text(inputs["answers"]).splitlines()
        if len(line) > 3 and line[1:3] == ": "
    }
    labels = _labels(inputs)
    cited = {label: len(_words(answers.get(label, "")) & remembered) for label in labels}
    ranked = sorted(labels, key=lambda label: (-cited[label], labels.index(label)))
    return Ranking.model_validate({"ranking": ranked})


JUDGE = task_register(
    PromptTask(
        name="believability_judge",
        template=Path(__file__).with_name("believability_judge.txt"),
        output=Ranking,
        offline=judge_offline,
        check=_check,
        repair=_mend,
        description="ranks the conditions' answers to an interview question by believability",
    )
)


def judge_rank(
    *,
    simulation: Simulation,
    agent: Agent,
    question: str,
    answers: Mapping[str, str],
    memories: Sequence[str],
    shuffle: str,
    profile: ModelProfile | None = None,
) -> list[str]:
    """The conditions of `answers` (condition -> answer), most believable first.

    The answers are labelled in an order shuffled by `shuffle` (a stable string), so the
    judge cannot learn which label is which condition. `profile` is the judge's model
    where the evaluation names one (else the simulation's route for the judge).
    """
    conditions = sorted(answers)
    random.Random(shuffle).shuffle(conditions)
    labelled = dict(zip(LABELS, conditions, strict=False))
    ranking = llm_run(
        task=JUDGE,
        inputs={
            "agent_name": agent.name,
            "summary": agent.summary or agent_identity(agent),
            "memories": [f"- {m}" for m in memories] or ["(nothing)"],
            "question": question,
            "answers": [
                f"{label}: {' '.join(answers[c].split())}" for label, c in labelled.items()
            ],
            "labels": ", ".join(labelled),
        },
        simulation=simulation,
        agent=agent,
        shared=False,  # each condition's answer, and each ranking, is a draw of its own
        profile=profile,
    ).ranking
    return [labelled[label] for label in ranking]
