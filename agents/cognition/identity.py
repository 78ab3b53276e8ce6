"""Who the resident is today: its summary description (the paper's identity paragraph,
made once a sim day from three retrievals) and what it did yesterday, both shown to the
day plan and the summary to every prompt that describes the resident."""

from __future__ import annotations

from datetime import timedelta

from agents.cognition.mind import Mind
from agents.cognition.recall import statements
from agents.cognition.selectors import day_recollection, memory_last_plan_get
from agents.events import agent_summarized
from agents.tasks.summary import SUMMARY
from llm.inputs import agent_identity
from llm.port import llm_run


def summary(mind: Mind) -> str:
    """The agent's summary description, made once a sim day from three retrievals."""
    agent, today, name = mind.agent, mind.now.date(), mind.name
    if mind.summary:
        return mind.summary
    if agent.summary and agent.summary_date == today:
        return agent.summary
    result = llm_run(
        task=SUMMARY,
        inputs={
            "agent_name": name,
            "agent_identity": agent_identity(agent),
            "statements": statements(
                mind,
                agent,
                f"{name}'s core characteristics",
                f"{name}'s current daily occupation",
                f"{name}'s feeling about recent progress in life",
                k=4,
            ),
        },
        simulation=mind.simulation,
        agent=agent,
    )
    mind.emit(agent_summarized(agent=name, summary=result.summary, date=today.isoformat()))
    # Kept in the mind, not the resident's row: another resident deciding this step reads
    # the row as committed, whichever process or shard decides it.
    mind.summary = result.summary
    return result.summary


def yesterday(mind: Mind) -> str:
    """What the agent did yesterday, whom it met and what it learned, from its memories;
    the latest day plan it remembers when it made no memories yesterday."""
    day = mind.now.date() - timedelta(days=1)
    seen = day_recollection(agent=mind.agent, day=day, tz=mind.now.tzinfo)
    parts = [f"{seen['planned'][0]}."] if seen["planned"] else []
    if seen["met"]:
        parts.append(f"{mind.name} talked with {', '.join(seen['met'])}.")
    if seen["learned"]:
        parts.append("What stayed with " + mind.name + ": " + " ".join(seen["learned"]))
    if parts:
        return " ".join(parts)
    last = memory_last_plan_get(agent=mind.agent)
    return last or "This is the first day of the simulation."
