"""The social loop: how a resident stands with another (the paper's context summary), what
it takes away from a conversation (a memo saying who told it, and a planning thought),
and the commitments (a party to go to) that planning then puts in its day."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta

from agents.cognition.mind import Mind, Note, summary_of
from agents.cognition.places import KnownPlaces
from agents.cognition.recall import statements
from agents.cognition.selectors import commitment_exists
from agents.events import agent_committed
from agents.models import Commitment
from agents.payloads import ConversationLine
from agents.tasks.conversation_takeaways import TAKEAWAYS, Takeaways
from agents.tasks.intention import INTENTION
from agents.tasks.relationship import RELATIONSHIP
from agents.tasks.shared import CommitmentOut
from llm.port import llm_run
from memories.models import MemoryKind
from world.models import Agent

COMMITMENT_HORIZON = timedelta(days=7)  # nobody plans further ahead than a week


def recalled_about(mind: Mind, agent: Agent, other: Agent) -> list[str]:
    """What `agent` remembers about `other`: the paper's two retrievals (the relationship,
    and what the other is doing), numbered ("nothing yet" when nothing comes back). The
    reaction reads them as they are (the reference's context for deciding to talk); a
    conversation sums them up first (`relationship_with`)."""
    found = statements(
        mind,
        agent,
        f"{agent.name}'s relationship with {other.name}",
        f"{other.name} is {other.action or 'idle'}",
        k=4,
        skip=("plan",),  # the items of its own day say nothing of how they stand
    )
    return [f"{i}. {s}" for i, s in enumerate(found, 1)] or ["nothing yet"]


def relationship_with(mind: Mind, agent: Agent, other: Agent) -> str:
    """How `agent` stands with `other`: what it recalls of the other summed up in one call;
    once a step (a conversation asks at every line, and the answer to the same inputs is
    the same)."""
    if (agent.name, other.name) in mind.bonds:
        return mind.bonds[(agent.name, other.name)]
    bond = llm_run(
        task=RELATIONSHIP,
        inputs={
            "agent_name": agent.name,
            "other_name": other.name,
            "statements": recalled_about(mind, agent, other),
        },
        simulation=mind.simulation,
        agent=agent,
    ).summary
    mind.bonds[(agent.name, other.name)] = bond
    return bond


def takeaways_ask(
    mind: Mind,
    *,
    me: Agent,
    partner: Agent,
    lines: list[ConversationLine],
    relationship: str,
) -> Takeaways:
    """What `me` takes away from a conversation with `partner` (one call)."""
    places = KnownPlaces(me, mind.context.town)
    return llm_run(
        task=TAKEAWAYS,
        inputs={
            "agent_name": me.name,
            "summary": summary_of(mind, me),
            "partner": partner.name,
            "relationship": relationship,
            "date": mind.now.date().isoformat(),
            "time": mind.now.strftime("%H:%M"),
            "places": places.text(),
            "dialogue": [f"{line['speaker']}: {line['text']}" for line in lines],
        },
        simulation=mind.simulation,
        agent=me,
    )


def takeaways_keep(mind: Mind, *, me: Agent, partner: Agent, result: Takeaways, tag: str) -> None:
    """After a conversation, `me` keeps a memo of the news it heard (saying who told it)
    and a planning thought (thought memories pointing at the conversation), and commits
    to a time and place when it means to go."""
    source: dict[str, object] = {"from": partner.name, "conversation": tag, "step": mind.step}
    if result.memo:
        spo = (me.name, "heard from", partner.name)
        mind.notes.append(Note(me.name, MemoryKind.THOUGHT, result.memo, spo, tag, source))
    thought = result.thought or result.memo
    if result.thought:
        spo = (me.name, "intends", result.thought[:300])
        mind.notes.append(Note(me.name, MemoryKind.THOUGHT, result.thought, spo, tag, source))
    if result.commitment is not None and thought:
        commit(mind, me, result.commitment, memory=thought, tag=tag)


def intend(mind: Mind, thought: str, plan: list[str] | None = None) -> Commitment | None:
    """A thought of the agent's own (its inner voice) that means to do something at a
    time or a place commits it (returned, for the caller to plan today's at once); `plan`
    is its plan from now, as `plan_lines` gives it."""
    places = mind.places
    result = llm_run(
        task=INTENTION,
        inputs={
            "agent_name": mind.name,
            "summary": summary_of(mind, mind.agent),
            "date": mind.now.date().isoformat(),
            "time": mind.now.strftime("%H:%M"),
            "places": places.text(),
            "plan": plan or ["none"],
            "thought": thought,
        },
        simulation=mind.simulation,
        agent=mind.agent,
    )
    if result.commitment is None:
        return None
    return commit(mind, mind.agent, result.commitment, memory=thought)


def commit(
    mind: Mind, agent: Agent, commitment: CommitmentOut, *, memory: str, tag: str = ""
) -> Commitment | None:
    """The commitment at a place the agent knows, if it lies ahead within the horizon
    (unsaved: its event makes the row), else None."""
    places = KnownPlaces(agent, mind.context.town)
    sector, _, arena = commitment.place.partition(":")
    sector, arena = places.nearest_arena(sector.strip(), arena.strip())
    day = date.fromisoformat(commitment.date)
    start = datetime.combine(day, time.fromisoformat(commitment.start), tzinfo=mind.now.tzinfo)
    end = datetime.combine(day, time.fromisoformat(commitment.end), tzinfo=mind.now.tzinfo)
    if end <= start:
        end = start + timedelta(hours=2)
    if not mind.now < start <= mind.now + COMMITMENT_HORIZON:
        return None
    address = places.address(sector, arena)
    if commitment_exists(agent=agent, start=start, address=address):
        return None  # committed to it already
    mind.emit(
        agent_committed(
            agent=agent.name,
            what=commitment.what,
            address=address,
            start=start,
            end=end,
            memory=memory,
            conversation=tag,
        )
    )
    return Commitment(agent=agent, what=commitment.what, address=address, start=start, end=end)
