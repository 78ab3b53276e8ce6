"""Prompt inputs derived from an agent, shared by the tasks that describe who is asking."""

from __future__ import annotations

from world.models import Agent


def agent_traits(agent: Agent) -> str:
    """Who the agent is, field by field (the identity stable set without its day's lines:
    prompts that show the lifestyle and daily requirement on lines of their own)."""
    lines = [
        f"Name: {agent.name}",
        f"Age: {agent.age}" if agent.age is not None else "",
        f"Innate traits: {agent.innate}" if agent.innate else "",
        f"Learned traits: {agent.learned}" if agent.learned else "",
        f"Currently: {agent.currently}" if agent.currently else "",
    ]
    return "\n".join(line for line in lines if line)


def agent_identity(agent: Agent) -> str:
    """The identity summary the reference prompts open with (its "identity stable set")."""
    lines = [
        agent_traits(agent),
        f"Lifestyle: {agent.lifestyle}" if agent.lifestyle else "",
        f"Daily plan requirement: {agent.daily_plan_requirement}"
        if agent.daily_plan_requirement
        else "",
    ]
    return "\n".join(line for line in lines if line)


def identity_fields(text: str) -> dict[str, str]:
    """The fields of an identity as `agent_identity` or `agent_traits` write it, by label
    ("Learned traits" -> its text)."""
    return dict(line.split(": ", 1) for line in text.splitlines() if ": " in line)
