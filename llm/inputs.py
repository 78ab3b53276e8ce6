"""Prompt inputs derived from an agent, shared by the tasks that describe who is asking."""

from __future__ import annotations

from world.models import Agent


def agent_identity(agent: Agent) -> str:
    """The identity summary the reference prompts open with (its "identity stable set")."""
    lines = [
        f"Name: {agent.name}",
        f"Age: {agent.age}" if agent.age is not None else "",
        f"Innate traits: {agent.innate}" if agent.innate else "",
        f"Learned traits: {agent.learned}" if agent.learned else "",
        f"Currently: {agent.currently}" if agent.currently else "",
        f"Lifestyle: {agent.lifestyle}" if agent.lifestyle else "",
        f"Daily plan requirement: {agent.daily_plan_requirement}"
        if agent.daily_plan_requirement
        else "",
    ]
    return "\n".join(line for line in lines if line)
