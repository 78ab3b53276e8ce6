"""What a user says to a resident: interviews, and whispers as its inner voice."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from django.db import transaction

from agents.events import agent_whispered, interview_answered
from agents.models import Interview
from agents.offline.key_words import answers, asked_about
from agents.offline.relevance import fits
from agents.selectors import plan_told
from agents.tasks.importance import importance_rate
from agents.tasks.interview import INTERVIEW
from llm.inputs import agent_identity
from llm.port import llm_run
from memories.models import Memory, MemoryKind
from memories.retrieval import memory_rows
from memories.selectors import memory_retrieval
from memories.services import MemoryDraft, memory_event_drafts, memory_touch_drafts
from runtime.controls.common import append_now
from world.eventlog import EventDraft
from world.models import Agent, Event, Simulation

INTERVIEW_MEMORIES = 8  # memories an interview answers from
INTERVIEW_RELEVANT = 4  # of them, those most relevant to the question, whatever their rank
# Retrieved for a question, to find the memories stating its answer: a fact heard on the
# first morning ranks lower every hour as the day's plans pile up (28th of 84 by noon).
INTERVIEW_CANDIDATES = 500


def interview_recall(memories: Sequence[Memory], *, question: str, name: str) -> list[Memory]:
    """The memories `name` answers `question` from, of those retrieved for it (best
    first): those stating what it asks in its words (`key_words.answers`), then the
    INTERVIEW_RELEVANT most relevant to it (the paper's relevance, read as
    `relevance.fits` does), then the rest in retrieval's order, INTERVIEW_MEMORIES of
    them. Retrieval weighs recency as much as relevance, so the memory that answers can
    rank behind a morning's plans ("Ada plans to be sweeping the shop" before the fair
    she is holding)."""
    if not memories:
        return []
    asked = asked_about(question, name)
    stating = [i for i, m in enumerate(memories) if answers(m.description, asked)]
    lifts = [fit.lift for fit in fits(question, [m.description for m in memories])]
    relevant = sorted(range(len(memories)), key=lambda i: (-lifts[i], i))[:INTERVIEW_RELEVANT]
    first = list(dict.fromkeys([*stating, *relevant]))
    rest = [m for i, m in enumerate(memories) if i not in first]
    return ([memories[i] for i in first] + rest)[:INTERVIEW_MEMORIES]


WHISPER_IMPORTANCE = 8  # the least importance of an inner-voice thought


def agent_interview(
    *,
    simulation: Simulation,
    agent: Agent,
    persona: str,
    question: str,
    session: str | None = None,
    remember: bool = False,
) -> Interview:
    """Ask the agent a question as `persona`; it answers from its memories and summary.

    The turns of one `session` (a new one when None) make the dialogue of the next. With
    `remember` the exchange also becomes a conversation memory of the agent. Retrieval
    touches the memories it returns, as when the agent recalls them itself.
    """
    session = session or uuid.uuid4().hex
    turns = Interview.objects.filter(simulation=simulation, agent=agent, session=session)
    dialogue: list[str] = []
    for turn in turns.order_by("number"):
        dialogue += [f"{turn.persona}: {turn.question}", f"{agent.name}: {turn.answer}"]
    retrieval = memory_retrieval(
        simulation=simulation, agent=agent, query=question, k=INTERVIEW_CANDIDATES
    )
    recalled = interview_recall(memory_rows(retrieval.scored), question=question, name=agent.name)
    memories = [m.description for m in recalled]
    answer = llm_run(
        task=INTERVIEW,
        inputs={
            "agent_name": agent.name,
            "summary": agent.summary or agent_identity(agent),
            "time": retrieval.now.strftime("%B %d, %Y, %H:%M"),
            "persona": persona,
            "memories": [f"{i}. {m}" for i, m in enumerate(memories, 1)] or ["none"],
            "plan": plan_told(agent=agent, now=retrieval.now) or ["none"],
            "dialogue": dialogue or ["(nothing yet)"],
            "question": question,
        },
        simulation=simulation,
        agent=agent,
    ).answer
    drafts = [
        interview_answered(
            agent=agent.name,
            session=session,
            persona=persona,
            question=question,
            answer=answer,
            remembered=remember,
        ),
        *memory_touch_drafts(
            agent=agent.name, numbers=[m.number for m in recalled], at=retrieval.now
        ),
    ]
    if remember:
        description = f'{persona} asked {agent.name}: "{question}" {agent.name} said: "{answer}"'
        importance = importance_rate(simulation=simulation, agent=agent, memory=description)
        drafts += memory_event_drafts(
            simulation=simulation,
            drafts=[
                MemoryDraft(
                    agent=agent.name,
                    kind=MemoryKind.CONVERSATION,
                    description=description,
                    importance=importance,
                    subject=agent.name,
                    predicate="was interviewed by",
                    object=persona,
                )
            ],
        )
    with transaction.atomic():  # the newest interview is ours while the lock is held
        append_now(simulation=simulation, drafts=drafts)
        return Interview.objects.filter(simulation=simulation).latest("number")


def agent_whisper(*, simulation: Simulation, agent: Agent, statement: str) -> Event:
    """The agent takes `statement` as its own thought: a thought memory of importance at
    least WHISPER_IMPORTANCE, acted on (a re-plan) at its next step."""
    drafts = whisper_drafts(simulation=simulation, agent=agent, statement=statement)
    return append_now(simulation=simulation, drafts=drafts)[-1]


def whisper_drafts(*, simulation: Simulation, agent: Agent, statement: str) -> list[EventDraft]:
    """The events of a whisper (`agent_whisper`); the caller appends them."""
    rated = importance_rate(simulation=simulation, agent=agent, memory=statement)
    memory = MemoryDraft(
        agent=agent.name,
        kind=MemoryKind.THOUGHT,
        description=statement,
        importance=max(WHISPER_IMPORTANCE, rated),
    )
    return [
        *memory_event_drafts(simulation=simulation, drafts=[memory]),
        agent_whispered(agent=agent.name, statement=statement),
    ]


def whisper_memory(*, event: Event) -> Memory | None:
    """The thought memory a whisper made (the newest of that text at its sim time)."""
    return (
        Memory.objects.filter(
            simulation_id=event.simulation_id,
            agent__name=event.agent,
            kind=MemoryKind.THOUGHT,
            created=event.sim_time,
            description=event.payload["statement"],
        )
        .order_by("-number")
        .first()
    )
