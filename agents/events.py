"""The agents layer's events: every kind, its payload type (typed in agents/payloads.py),
and the one builder of each.

Cognition, controls and reflection build events only through these functions, so a
payload has one shape wherever it is made. Which projection applies each kind:

- `agents.projections.AgentProjection` (`Agent` rows): `agent.*`, `object.state`,
  `reflection.*`, and `memory.created` of what an agent perceives (its importance counts
  toward reflection);
- `agents.projections.CognitionProjection` (plans, commitments, conversations,
  interviews, object states): `plan.*`, `agent.committed`, `conversation.held`,
  `interview.answered`, `object.state`.

`memory.*` kinds are the memory stream's (`memories.events`), `simulation.*` the world's
(`world.events`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from agents.payloads import (
    ActingPayload,
    ArrivedPayload,
    ChatCooldownPayload,
    CommittedPayload,
    ControlPayload,
    ConversationLine,
    ConversationPayload,
    DayPlannedPayload,
    HeadedPayload,
    InterviewPayload,
    LearnedPayload,
    MovedPayload,
    ObjectStatePayload,
    PerceivedPayload,
    PlanItemPayload,
    PlanMadePayload,
    ReflectionDonePayload,
    ReflectionRequestedPayload,
    SummarizedPayload,
    WhisperedPayload,
)
from memories.events import MEMORY_CREATED, MEMORY_RATED
from world.eventlog import EventDraft

AGENT_CREATED = "agent.created"
AGENT_MOVED = "agent.moved"
AGENT_HEADED = "agent.headed"
AGENT_ARRIVED = "agent.arrived"
AGENT_PERCEIVED = "agent.perceived"
AGENT_ACTING = "agent.acting"
AGENT_SUMMARIZED = "agent.summarized"
AGENT_CHAT_COOLDOWN = "agent.chat_cooldown"
AGENT_DAY_PLANNED = "agent.day_planned"
AGENT_LEARNED = "agent.learned"
AGENT_WHISPERED = "agent.whispered"  # the inner voice: a thought to act on next step
AGENT_THOUGHT_HANDLED = "agent.thought_handled"
AGENT_CONTROL = "agent.control"  # a user takes or gives back control of an agent
INTERVIEW_ANSWERED = "interview.answered"
REFLECTION_REQUESTED = "reflection.requested"
REFLECTION_DONE = "reflection.done"
PLAN_MADE = "plan.made"
PLAN_REVISED = "plan.revised"
OBJECT_STATE = "object.state"
CONVERSATION_HELD = "conversation.held"
AGENT_COMMITTED = "agent.committed"  # an intention with a time and place (a party to attend)
AGENT_LEFT = "agent.left"  # a resident leaves the town (its row stays, retired)
SCENARIO_ADDED = "scenario.added"  # a timed intervention, pending until its step
SCENARIO_CANCELLED = "scenario.cancelled"
SCENARIO_APPLIED = "scenario.applied"  # its effects are the events before it

# Memory kinds an agent perceives: their importance counts toward its next reflection.
PERCEIVED_KINDS = ("observation", "conversation")


def importance_counted(kind: str, payload: Mapping[str, Any]) -> int:
    """What a memory event adds toward its agent's next reflection: the importance of a
    perceived memory when it is rated (at creation, or by its `memory.rated`)."""
    if kind == MEMORY_CREATED:
        if payload["kind"] in PERCEIVED_KINDS and "rating_due" not in payload:
            return int(payload["importance"])
        return 0
    if kind == MEMORY_RATED:
        return sum(
            int(score)
            for score, memory_kind in zip(payload["importance"], payload["kinds"], strict=True)
            if memory_kind in PERCEIVED_KINDS
        )
    return 0


IDLE = "idle"  # an object's state when nobody uses it
IDLE_STATES = ("", IDLE)  # what a user may write for it


def is_idle(state: str) -> bool:
    return state in IDLE_STATES


Tile = Sequence[int]


def _tiles(path: Iterable[Tile]) -> list[list[int]]:
    return [[int(v) for v in tile] for tile in path]


# --- builders ----------------------------------------------------------------------------


def _draft(kind: str, agent: str, payload: Mapping[str, Any]) -> EventDraft:
    return EventDraft(kind=kind, agent=agent, payload=dict(payload))


def agent_created(*, agent: str, identity: Mapping[str, Any], tile: Tile) -> EventDraft:
    return _draft(AGENT_CREATED, agent, {**identity, "tile": [int(v) for v in tile]})


def agent_moved(*, agent: str, tile: Tile) -> EventDraft:
    return _draft(AGENT_MOVED, agent, MovedPayload(tile=[int(v) for v in tile]))


def agent_headed(*, agent: str, destination: str, path: Iterable[Tile], action: str) -> EventDraft:
    payload = HeadedPayload(destination=destination, path=_tiles(path), action=action)
    return _draft(AGENT_HEADED, agent, payload)


def agent_arrived(*, agent: str, action: str, busy_until_step: int) -> EventDraft:
    payload = ArrivedPayload(action=action, busy_until_step=busy_until_step)
    return _draft(AGENT_ARRIVED, agent, payload)


def agent_perceived(*, agent: str, observations: list[str]) -> EventDraft:
    return _draft(AGENT_PERCEIVED, agent, PerceivedPayload(observations=observations))


def agent_acting(
    *,
    agent: str,
    action: str,
    emoji: str,
    address: str,
    spo: Sequence[str],
    start_step: int,
    end_step: int,
    path: Iterable[Tile] = (),
    chatting_with: str = "",
    conversation: str = "",
    object_state: str = "",
) -> EventDraft:
    """What the agent does from `start_step` until `end_step`, walking `path` to `address`
    first (the tiles after its own); `object_state` is what the object there becomes
    when the agent reaches it."""
    payload = ActingPayload(
        action=action,
        emoji=emoji,
        address=address,
        spo=list(spo),
        start_step=start_step,
        end_step=end_step,
        path=_tiles(path),
    )
    if chatting_with:
        payload["chatting_with"] = chatting_with
    if conversation:
        payload["conversation"] = conversation
    if object_state:
        payload["object_state"] = object_state
    return _draft(AGENT_ACTING, agent, payload)


def agent_stand_still(*, agent: str, step: int, address: str) -> EventDraft:
    """The agent stops where it is, doing nothing in particular (others see it idle)."""
    return agent_acting(
        agent=agent, action="", emoji="", address=address, spo=(), start_step=step, end_step=step
    )


def agent_summarized(*, agent: str, summary: str, date: str) -> EventDraft:
    return _draft(AGENT_SUMMARIZED, agent, SummarizedPayload(summary=summary, date=date))


def agent_day_planned(*, agent: str, date: str) -> EventDraft:
    return _draft(AGENT_DAY_PLANNED, agent, DayPlannedPayload(date=date))


def agent_learned(*, agent: str, sector: str, arena: str, objects: list[str]) -> EventDraft:
    payload = LearnedPayload(sector=sector, arena=arena, objects=objects)
    return _draft(AGENT_LEARNED, agent, payload)


def agent_whispered(*, agent: str, statement: str) -> EventDraft:
    return _draft(AGENT_WHISPERED, agent, WhisperedPayload(statement=statement))


def agent_thought_handled(*, agent: str) -> EventDraft:
    return _draft(AGENT_THOUGHT_HANDLED, agent, {})


def agent_control(*, agent: str, user_controlled: bool) -> EventDraft:
    return _draft(AGENT_CONTROL, agent, ControlPayload(user_controlled=user_controlled))


def agent_left(*, agent: str, step: int) -> EventDraft:
    return _draft(AGENT_LEFT, agent, {"step": step})


def scenario_added(
    *, number: int, kind: str, step: int, at: datetime, params: Mapping[str, Any]
) -> EventDraft:
    payload = {"number": number, "kind": kind, "step": step, "at": at.isoformat()}
    return _draft(SCENARIO_ADDED, "", {**payload, "params": dict(params)})


def scenario_cancelled(*, number: int) -> EventDraft:
    return _draft(SCENARIO_CANCELLED, "", {"number": number})


def scenario_applied(
    *, number: int, outcome: str = "", recipients: Sequence[str] = ()
) -> EventDraft:
    """Scenario `number` took effect (`outcome` says why it did nothing, when it did not);
    `recipients` are the residents it reached (who heard an announcement, say)."""
    payload: dict[str, Any] = {"number": number, "recipients": list(recipients)}
    if outcome:
        payload["outcome"] = outcome
    return _draft(SCENARIO_APPLIED, "", payload)


def agent_chat_cooldown(
    *, agent: str, partner: str, until_step: int, conversation: str = ""
) -> EventDraft:
    payload = ChatCooldownPayload(partner=partner, until_step=until_step)
    if conversation:
        payload["conversation"] = conversation
    return _draft(AGENT_CHAT_COOLDOWN, agent, payload)


def plan_item(
    *,
    level: str,
    description: str,
    start: datetime,
    minutes: int,
    address: str | None = None,
    emoji: str | None = None,
    spo: Sequence[str] | None = None,
    parent_index: int | None = None,
    parent_start: datetime | None = None,
    source_memory: int | None = None,
) -> PlanItemPayload:
    """One node of a plan tree in a `plan.made` payload (only the given keys are set)."""
    item = PlanItemPayload(
        level=str(level), description=description, start=start.isoformat(), duration_minutes=minutes
    )
    if address is not None:
        item["address"] = address
    if emoji is not None:
        item["emoji"] = emoji
    if spo is not None:
        item["spo"] = list(spo)
    if parent_index is not None:
        item["parent_index"] = parent_index
    if parent_start is not None:
        item["parent_start"] = parent_start.isoformat()
    if source_memory is not None:
        item["source_memory"] = source_memory
    return item


def plan_made(*, agent: str, items: list[PlanItemPayload]) -> EventDraft:
    return _draft(PLAN_MADE, agent, PlanMadePayload(items=items))


def plan_revised(
    *, agent: str, since: str, conversation: str = "", rest_of_day: bool = False
) -> EventDraft:
    """The agent's actions from sim time `since` (ISO) are superseded; with `rest_of_day`
    its hour blocks from then on too (a new schedule for the rest of the day follows)."""
    payload: dict[str, object] = {"from": since}
    if conversation:
        payload["conversation"] = conversation
    if rest_of_day:
        payload["rest_of_day"] = True
    return _draft(PLAN_REVISED, agent, payload)


def agent_committed(
    *,
    agent: str,
    what: str,
    address: str,
    start: datetime,
    end: datetime,
    memory: str,
    conversation: str = "",
) -> EventDraft:
    """The agent means to do `what` at `address` from `start` to `end`."""
    payload = CommittedPayload(
        what=what, address=address, start=start.isoformat(), end=end.isoformat(), memory=memory
    )
    if conversation:
        payload["conversation"] = conversation
    return _draft(AGENT_COMMITTED, agent, payload)


def object_state(*, address: str, state: str, agent: str = "") -> EventDraft:
    """An object's new state in words ("idle" when nobody uses it); no agent: a user set it."""
    return _draft(OBJECT_STATE, agent, ObjectStatePayload(address=address, state=state))


def conversation_held(
    *,
    agent: str,
    participants: list[str],
    lines: Sequence[Mapping[str, Any]],
    summary: str,
    address: str,
    conversation: str = "",
) -> EventDraft:
    said = [ConversationLine(speaker=line["speaker"], text=line["text"]) for line in lines]
    payload = ConversationPayload(
        participants=participants, lines=said, summary=summary, address=address
    )
    if conversation:
        payload["conversation"] = conversation
    return _draft(CONVERSATION_HELD, agent, payload)


def interview_answered(
    *, agent: str, session: str, persona: str, question: str, answer: str, remembered: bool
) -> EventDraft:
    payload = InterviewPayload(
        session=session, persona=persona, question=question, answer=answer, remembered=remembered
    )
    return _draft(INTERVIEW_ANSWERED, agent, payload)


def reflection_requested(*, agent: str, due_step: int, importance: int) -> EventDraft:
    payload = ReflectionRequestedPayload(due_step=due_step, importance=importance)
    return _draft(REFLECTION_REQUESTED, agent, payload)


def reflection_done(
    *,
    agent: str,
    due_step: int,
    questions: list[str],
    reflections: int,
    dropped_citations: list[Any],
) -> EventDraft:
    payload = ReflectionDonePayload(
        due_step=due_step,
        questions=questions,
        reflections=reflections,
        dropped_citations=dropped_citations,
    )
    return _draft(REFLECTION_DONE, agent, payload)


def reflection_failed(*, agent: str, due_step: int, error: str) -> EventDraft:
    payload = ReflectionDonePayload(due_step=due_step, failed=True, error=error)
    return _draft(REFLECTION_DONE, agent, payload)
