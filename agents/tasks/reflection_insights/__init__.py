"""`reflection_insights`: up to 5 insights an agent infers from the statements retrieved
for one question, each citing the statements it rests on. Offline: what a person would state
about the people the recurring terms name or are about (agents/offline/insights.py), each
rated as the `importance` task rates it."""

from __future__ import annotations

import random
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from agents.offline.insights import facts_of, insights_about, subject_of
from agents.offline.judgments import importance
from agents.offline.terms import recurring_terms, statement_lines
from llm.tasks import Inputs, PromptTask, task_register

TEMPLATE = Path(__file__).with_name("template.txt")
INSIGHTS_PER_QUESTION = 5
CITATIONS_PER_INSIGHT = 5


class Insight(BaseModel):
    model_config = ConfigDict(extra="forbid")

    insight: str = Field(min_length=1, max_length=500)
    because: list[int] = Field(description="numbers of the statements the insight rests on")
    importance: int = Field(ge=1, le=10, description="poignancy: 1 mundane .. 10 poignant")


class Insights(BaseModel):
    """What an agent infers from the statements retrieved for one question."""

    model_config = ConfigDict(extra="forbid")

    insights: list[Insight] = Field(min_length=1, max_length=INSIGHTS_PER_QUESTION)


def insights_offline(inputs: Inputs, rng: random.Random) -> Insights:
    """Up to five insights over the statements, each citing the ones it rests on: about
    the people the recurring terms name or are about (the question's own first), then the
    agent itself (`offline_insights`)."""
    agent = str(inputs["agent_name"])
    question = str(inputs["question"]).lower()
    lines = statement_lines(inputs["statements"])
    terms = recurring_terms(lines, agent)
    terms.sort(key=lambda t: t.text.lower() not in question)  # stable
    facts = facts_of(lines, agent)
    subjects: list[str] = []
    for term in terms:
        subject = term.text if term.person else subject_of(term.text, facts)
        if subject and subject not in subjects:
            subjects.append(subject)
    subjects += [] if agent in subjects else [agent]
    # A statement the memories already hold is not a new insight.
    known = {text.lower().rstrip(".") for _, text in lines}
    insights: list[Insight] = []
    for subject in subjects:
        for text, because in insights_about(subject, lines, facts, agent):
            text = text[0].upper() + text[1:].rstrip(".")
            if len(insights) == INSIGHTS_PER_QUESTION or text.lower() in known:
                continue
            known.add(text.lower())
            insights.append(
                Insight(
                    insight=text[:500],
                    because=because[:CITATIONS_PER_INSIGHT],
                    importance=importance(text),
                )
            )
    if not insights:
        recent = [number for number, _ in lines][-CITATIONS_PER_INSIGHT:]
        insights.append(
            Insight(insight=f"{agent} has had a quiet stretch", because=recent, importance=2)
        )
    return Insights(insights=insights)


INSIGHTS = task_register(
    PromptTask(
        name="reflection_insights",
        template=TEMPLATE,
        output=Insights,
        offline=insights_offline,
        description="5 insights citing the numbered statements they rest on",
    )
)
