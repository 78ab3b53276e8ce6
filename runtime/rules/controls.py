"""Commit rules of the user controls: a resident a user took over keeps still."""

from __future__ import annotations

from agents.events import AGENT_ACTING, AGENT_MOVED
from runtime.commit_context import CommitContext
from world.eventlog import EventDraft
from world.models import Agent


def drop_stale_actions(context: CommitContext, drafts: list[EventDraft]) -> list[EventDraft]:
    """A commit rule: a resident a user took control of while its step was being decided
    keeps still. Its cognition, deciding as if it were not controlled, may have started a
    walk (`agent.acting`); a user-controlled resident's own decisions never do, and the
    actions others' conversations give it carry a `conversation` tag."""
    actors = {d.agent for d in drafts if d.kind == AGENT_ACTING and "conversation" not in d.payload}
    if not actors:
        return drafts
    agents = context.agents
    controlled = {name for name in actors if name in agents and agents[name].user_controlled}
    return [
        d
        for d in drafts
        if not (
            d.agent in controlled and d.kind == AGENT_ACTING and "conversation" not in d.payload
        )
    ]


def drop_stale_moves(context: CommitContext, drafts: list[EventDraft]) -> list[EventDraft]:
    """A commit rule: a user-controlled agent sent somewhere else (`go`) while its step was
    being decided keeps still this step. The step's move followed the old path; applied
    after the new one, it would put the agent off that path, two tiles from its next."""
    controlled = [a.name for a in context.agents.values() if a.user_controlled]
    if not controlled:
        return drafts
    paths = dict(
        Agent.objects.filter(simulation=context.simulation, name__in=controlled).values_list(
            "name", "path"
        )
    )
    return [
        d
        for d in drafts
        if not (
            d.kind == AGENT_MOVED
            and d.agent in paths
            and (not paths[d.agent] or list(paths[d.agent][0]) != list(d.payload["tile"]))
        )
    ]
