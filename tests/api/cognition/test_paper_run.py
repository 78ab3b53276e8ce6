"""After a short run of the paper's cognition the API shows what residents do and plan."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from agents.models import Conversation
from agents.services import simulation_create_from_base
from runtime import engine
from tests.api import N3
from world.models import Agent

from . import START


def _walk(nodes: list[dict[str, Any]], level: str) -> None:
    """Each level holds only the next one down, in time order."""
    assert all(node["level"] == level for node in nodes)
    assert [n["start"] for n in nodes] == sorted(n["start"] for n in nodes)
    below = {"day": "hour", "hour": "action"}.get(level)
    for node in nodes:
        if below is None:
            assert "children" not in node
        else:
            _walk(node["children"], below)


@pytest.mark.django_db(transaction=True)
def test_residents_plans_and_conversations_after_a_run(user: User, api: APIClient) -> None:
    simulation = simulation_create_from_base(
        owner=user, base=N3, config={"cognition": "paper"}, sec_per_step=20, start_time=START
    )
    simulation = engine.simulation_run_inline(simulation=simulation, steps=150)
    assert simulation.status == "idle", simulation.status_reason
    base = f"/api/simulations/{simulation.pk}"

    rows = api.get(f"{base}/residents/").json()["results"]
    assert len(rows) == 3
    for row in rows:
        agent = Agent.objects.get(simulation=simulation, name=row["name"])
        assert row["action"] and row["action"] == agent.action, row
        assert row["emoji"] == agent.action_emoji and row["emoji"], row
        assert row["place"] == (agent.action_address or row["location"]) and row["place"]
        assert row["busy_until_step"] == agent.busy_until_step
        assert row["chatting_with"] == agent.chatting_with

        plan = api.get(f"{base}/residents/{quote(row['name'])}/plan/").json()
        assert plan["date"] == "2023-02-13" and plan["items"], row["name"]
        _walk(plan["items"], "day")
        actions = [
            action
            for day in plan["items"]
            for hour in day["children"]
            for action in hour["children"]
        ]
        assert actions, row["name"]
        hours = [hour for day in plan["items"] for hour in day["children"] if hour["current"]]
        assert len(hours) == 1, row["name"]
        current = [a for a in actions if a["current"]]
        if agent.chatting_with:  # a conversation is a reaction, not an item of the plan
            assert agent.action == f"chatting with {agent.chatting_with}"
        else:
            # The action under way is an item of the plan; the one marked current is the
            # item covering the sim time, which the agent reaches when its action ends
            # (an action ends on the first step at or after its planned end).
            doing = [
                a
                for a in actions
                if (a["description"], a["emoji"], a["address"])
                == (agent.action, agent.action_emoji, agent.action_address)
            ]
            assert doing, row["name"]
            assert len(current) <= 1, row["name"]

    talks = api.get(f"{base}/conversations/").json()
    assert talks["count"] == Conversation.objects.filter(simulation=simulation).count() > 0
    numbers = [talk["number"] for talk in talks["results"]]
    assert numbers == sorted(numbers, reverse=True)
    for talk in talks["results"]:
        detail = api.get(f"{base}/conversations/{talk['number']}/").json()
        assert len(detail["lines"]) == talk["line_count"] > 0
        assert {line["speaker"] for line in detail["lines"]} <= set(talk["participants"])
        first = talk["participants"][0]
        mine = api.get(f"{base}/conversations/?participant={quote(first)}").json()["results"]
        assert talk["number"] in [row["number"] for row in mine]
