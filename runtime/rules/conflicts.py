"""Commit rules of cognition: conflicts between the decisions of one step.

Decisions are made in parallel from the same snapshot, so two residents may start a
conversation with the same person, or take the same bed. In decision order (agent name):
a conversation stands if none of its participants is already in one this step; its
partner's own plans for the step give way to it; a conversation that cannot stand is
dropped whole. A single-occupancy object goes to the first resident who takes it.
"""

from __future__ import annotations

from agents.cognition.places import single_occupancy
from agents.cognition.selectors import object_holder, object_setters_get
from agents.events import (
    AGENT_ACTING,
    AGENT_MOVED,
    CONVERSATION_HELD,
    OBJECT_STATE,
    PLAN_REVISED,
    is_idle,
)
from runtime.commit_context import CommitContext
from world.eventlog import EventDraft

# Kinds of a resident's own decision that a conversation it is pulled into replaces.
_DISPLACED = {AGENT_ACTING, AGENT_MOVED, OBJECT_STATE, PLAN_REVISED}
# A late claim's step undoes these of the resident's own events.
_UNDONE = {AGENT_ACTING, AGENT_MOVED, OBJECT_STATE}


def resolve_conversations(context: CommitContext, drafts: list[EventDraft]) -> list[EventDraft]:
    engaged: dict[str, str] = {}  # participant -> initiator of the conversation that stands
    dropped: set[str] = set()
    for draft in drafts:
        if draft.kind != CONVERSATION_HELD:
            continue
        initiator = draft.payload["conversation"]
        if any(p in engaged for p in draft.payload["participants"]):
            dropped.add(initiator)
            continue
        for participant in draft.payload["participants"]:
            engaged[participant] = initiator
    if not engaged and not dropped:
        return drafts
    kept = []
    for draft in drafts:
        tag = draft.payload.get("conversation")
        if tag in dropped:
            continue
        if tag is None and draft.agent in engaged and draft.kind in _DISPLACED:
            continue  # the resident is in a conversation now
        kept.append(draft)
    return kept


def resolve_occupancy(context: CommitContext, drafts: list[EventDraft]) -> list[EventDraft]:
    """A resident claims a single-occupancy object by giving it its action's state (on
    reaching it). A claim on an object someone else holds, or that another resident
    claimed first this step, is undone with the rest of its step's moves: the resident
    stays where it was and looks again next step."""
    claims = [
        d
        for d in drafts
        if d.kind == OBJECT_STATE
        and d.agent
        and not is_idle(d.payload["state"])
        and single_occupancy(d.payload["address"])
    ]
    if not claims:
        return drafts
    setters = object_setters_get(simulation=context.simulation)
    held = {c.payload["address"]: object_holder(setters, c.payload["address"]) for c in claims}
    late: set[str] = set()
    for claim in claims:
        address = claim.payload["address"]
        holder = held[address]
        if holder and holder != claim.agent:
            late.add(claim.agent)
            continue
        held[address] = claim.agent
    return [
        d
        for d in drafts
        if not (d.agent in late and d.kind in _UNDONE and "conversation" not in d.payload)
    ]
