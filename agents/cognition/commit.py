"""Commit rules of cognition: conflicts between the decisions of one step.

Decisions are made in parallel from the same snapshot, so two residents may start a
conversation with the same person, or take the same bed. In decision order (agent name):
a conversation stands if none of its participants is already in one this step; its
partner's own plans for the step give way to it; a conversation that cannot stand is
dropped whole. A single-occupancy object goes to the first resident who takes it.
"""

from __future__ import annotations

from world.eventlog import EventDraft

from ..commit_context import CommitContext
from ..events import AGENT_ACTING, AGENT_MOVED, CONVERSATION_HELD, OBJECT_STATE, PLAN_REVISED
from .places import single_occupancy

# Kinds of a resident's own decision that a conversation it is pulled into replaces.
_DISPLACED = {AGENT_ACTING, AGENT_MOVED, OBJECT_STATE, PLAN_REVISED}


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
    taken = {
        a.action_address: a.name
        for a in context.agents.values()
        if a.busy_until_step > context.step
        and a.action_address
        and single_occupancy(a.action_address)
    }
    kept = []
    late: set[str] = set()
    for draft in drafts:
        if draft.kind == AGENT_ACTING and single_occupancy(draft.payload.get("address", "")):
            address = draft.payload["address"]
            holder = taken.get(address)
            if holder is not None and holder != draft.agent:
                late.add(draft.agent)
                continue  # it tries again next step and finds the object taken
            taken[address] = draft.agent
        if draft.kind == OBJECT_STATE and draft.agent in late:
            continue
        kept.append(draft)
    return kept
