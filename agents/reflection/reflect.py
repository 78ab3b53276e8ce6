"""One reflection, as the paper does it: questions, retrieval, insights citing evidence.

1. The agent's 100 most recent memories (by number; "X is idle" left out, as the
   reference implementation does) are shown, numbered, and the model asks the 3 most
   salient high-level questions about them.
2. Each question is a retrieval query over all the agent's memories, reflections
   included, scored at the sim time of the state the job reads.
3. The model draws 5 insights from each question's statements, numbered 1..n, and cites
   them. Citation i becomes an evidence link to the memory shown as statement i; a
   citation outside 1..n is dropped and logged, and an insight left citing nothing is
   dropped. The memory projection makes a reflection's depth one more than its deepest
   evidence.

Nothing here writes: the outcome is event drafts (the reflections, and the touch of the
memories retrieval returned) for the commit of the due step to append.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agents.tasks.reflection_insights import INSIGHTS, Insight
from agents.tasks.reflection_questions import QUESTIONS
from agents.tasks.shared import numbered
from llm.port import llm_run
from memories.embeddings import embed_query
from memories.models import Memory, MemoryKind
from memories.retrieval import memories_retrieve, weights_for
from memories.services import MemoryDraft, memory_event_drafts, memory_touch_drafts
from world.eventlog import EventDraft
from world.models import Agent, Simulation

log = logging.getLogger(__name__)

RECENT_MEMORIES = 100
RETRIEVED_PER_QUESTION = 30  # the reference implementation's retrieval count


@dataclass
class Outcome:
    """What a reflection produced: its questions, the events to log, what was dropped."""

    questions: list[str] = field(default_factory=list)
    events: list[EventDraft] = field(default_factory=list)
    reflections: int = 0
    dropped: list[dict[str, Any]] = field(default_factory=list)


def insights_cited(
    *, agent: str, question: str, insights: Sequence[Insight], shown: Sequence[int]
) -> tuple[list[MemoryDraft], list[dict[str, Any]]]:
    """Reflection drafts whose evidence is the memories the insights cite, and the drops.

    Statement i of the prompt was memory `shown[i - 1]`; a citation is kept in the order
    given, once. A citation outside 1..len(shown) is dropped and logged, and so is an
    insight left without any citation.
    """
    drafts: list[MemoryDraft] = []
    dropped: list[dict[str, Any]] = []
    for insight in insights:
        evidence: list[int] = []
        for citation in insight.because:
            if not 1 <= citation <= len(shown):
                log.warning(
                    "reflection of %s: %r cites statement %d, but %d were shown; dropped",
                    agent,
                    insight.insight,
                    citation,
                    len(shown),
                )
                dropped.append(
                    {
                        "question": question,
                        "insight": insight.insight,
                        "citation": citation,
                        "shown": len(shown),
                    }
                )
            elif shown[citation - 1] not in evidence:
                evidence.append(shown[citation - 1])
        text = insight.insight.strip()
        if not evidence or not text:
            log.warning("reflection of %s: %r cites nothing shown; dropped", agent, text)
            dropped.append(
                {"question": question, "insight": text, "citation": None, "shown": len(shown)}
            )
            continue
        drafts.append(
            MemoryDraft(
                agent=agent,
                kind=MemoryKind.REFLECTION,
                description=text,
                importance=insight.importance,
                evidence=tuple(evidence),
            )
        )
    return drafts, dropped


def reflection_compute(*, simulation: Simulation, agent: Agent, read_step: int) -> Outcome:
    """Reflect on the state committed at `read_step`; the result is logged at the next."""
    recent = list(
        Memory.objects.filter(agent=agent)
        .exclude(description__iendswith=" is idle")
        .order_by("-number")
        .values_list("description", flat=True)[:RECENT_MEMORIES]
    )[::-1]
    outcome = Outcome()
    if not recent:
        return outcome
    asked = llm_run(
        task=QUESTIONS,
        inputs={"agent_name": agent.name, "statements": numbered(recent)},
        simulation=simulation,
        agent=agent,
    )
    outcome.questions = [q.strip() for q in asked.questions if q.strip()]
    weights = weights_for(simulation.config)
    now = simulation.sim_time_at(read_step)
    drafts: list[MemoryDraft] = []
    touched: set[int] = set()
    for question in outcome.questions:
        scored = memories_retrieve(
            agent_id=agent.pk,
            query_embedding=embed_query(text=question, simulation=simulation),
            now=now,
            decay=agent.recency_decay,
            weights=weights,
            k=RETRIEVED_PER_QUESTION,
        )
        texts = dict(
            Memory.objects.filter(pk__in=[s.memory_id for s in scored]).values_list(
                "pk", "description"
            )
        )
        shown = [s.number for s in scored]
        touched.update(shown)
        answer = llm_run(
            task=INSIGHTS,
            inputs={
                "agent_name": agent.name,
                "question": question,
                "statements": numbered([texts[s.memory_id] for s in scored]),
            },
            simulation=simulation,
            agent=agent,
        )
        made, dropped = insights_cited(
            agent=agent.name, question=question, insights=answer.insights, shown=shown
        )
        for draft in made:  # an insight two questions lead to is one memory
            if all(draft.description != d.description for d in drafts):
                drafts.append(draft)
        outcome.dropped += dropped
    outcome.reflections = len(drafts)
    # Retrieval touches what it returns; the touch is logged with the reflections.
    at = simulation.sim_time_at(read_step + 1)
    outcome.events = memory_event_drafts(simulation=simulation, drafts=drafts)
    outcome.events += memory_touch_drafts(agent=agent.name, numbers=touched, at=at)
    return outcome
