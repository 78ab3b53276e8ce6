"""`reflection_questions`: the 3 most salient high-level questions about an agent's latest
memories, the focal points of a reflection. Offline: questions about the three terms that
recur in the most statements (agents/offline/terms.py), people and subjects asked of
differently."""

from __future__ import annotations

import random
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from agents.offline.terms import recurring_terms, statement_lines
from llm.tasks import Inputs, PromptTask, task_register

TEMPLATE = Path(__file__).with_name("template.txt")
QUESTIONS_PER_REFLECTION = 3


class Questions(BaseModel):
    """The focal points of a reflection."""

    model_config = ConfigDict(extra="forbid")

    questions: list[str] = Field(
        min_length=QUESTIONS_PER_REFLECTION,
        max_length=QUESTIONS_PER_REFLECTION,
        description="the 3 most salient high-level questions about the statements",
    )


_PERSON_QUESTIONS = (
    "What is {agent}'s relationship with {term}?",
    "What does {agent} know about {term}?",
    "How does {agent} feel about {term}?",
)
_SUBJECT_QUESTIONS = (
    "What does {agent} think about {term}?",
    "What role does {term} play in {agent}'s life?",
    "Why does {term} keep coming up for {agent}?",
)
_GENERIC_QUESTIONS = (
    "What is {agent} spending the days on?",
    "Who does {agent} see most often?",
    "How has {agent} been feeling lately?",
)


def questions_offline(inputs: Inputs, rng: random.Random) -> Questions:
    """Questions about the three terms that recur in the most statements."""
    agent = str(inputs["agent_name"])
    lines = statement_lines(inputs["statements"])
    questions = []
    for term in recurring_terms(lines, agent)[:QUESTIONS_PER_REFLECTION]:
        templates = _PERSON_QUESTIONS if term.person else _SUBJECT_QUESTIONS
        questions.append(rng.choice(templates).format(agent=agent, term=term.text))
    for generic in _GENERIC_QUESTIONS[: QUESTIONS_PER_REFLECTION - len(questions)]:
        questions.append(generic.format(agent=agent))
    return Questions(questions=questions)


QUESTIONS = task_register(
    PromptTask(
        name="reflection_questions",
        template=TEMPLATE,
        output=Questions,
        offline=questions_offline,
        description="the 3 most salient high-level questions about the 100 latest memories",
    )
)
