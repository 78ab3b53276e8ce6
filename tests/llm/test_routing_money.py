"""Routes to model profiles and money: each call goes to its group's profile, costs its
tokens at that profile's prices, and a money budget stops the simulation with its reason."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from agents.services import simulation_create_from_base
from agents.tasks.importance import IMPORTANCE
from llm.errors import BudgetExhausted
from llm.models import ModelCall, ModelUsage
from llm.policy_server import PolicyServer
from llm.port import llm_run
from world.models import Simulation, SimulationStatus

TOWN = "base_the_ville_isabella_maria_klaus"


def _inputs(n: int) -> dict[str, str]:
    return {
        "agent_name": "Pell Marrowind",
        "agent_identity": "Name: Pell Marrowind\nAge: 33",
        "memory": f"Pell Marrowind counted {n} lanterns along the quay",
    }


def _profile(api: APIClient, server: PolicyServer, name: str, prices: tuple[str, str]) -> int:
    made = api.post(
        "/api/profiles/",
        {
            "name": name,
            "base_url": server.base_url,
            "model": f"model-{name}",
            "send_task": True,
            "input_price": prices[0],
            "output_price": prices[1],
        },
        format="json",
    )
    assert made.status_code == 201, made.json()
    return int(made.json()["id"])


def _simulation(user: User) -> Simulation:
    return simulation_create_from_base(
        owner=user, base=TOWN, seed=3, start_time=datetime(2023, 2, 13, 7, 0, tzinfo=UTC)
    )


@pytest.mark.django_db(transaction=True)
def test_ratings_go_to_their_route_and_the_ledger_money_matches_the_prices(
    user: User, api: APIClient
) -> None:
    simulation = _simulation(user)
    agent = simulation.agents.order_by("name").first()
    with PolicyServer() as residents, PolicyServer() as ratings:
        main = _profile(api, residents, "main", ("3", "15"))
        cheap = _profile(api, ratings, "cheap", ("0.15", "0.6"))
        routed = api.put(
            f"/api/simulations/{simulation.pk}/models/",
            {"routes": {"residents": main, "ratings": cheap}},
            format="json",
        )
        assert routed.status_code == 200, routed.json()
        for n in range(3):
            llm_run(task=IMPORTANCE, inputs=_inputs(n), agent=agent)
        llm_run(task="summary", inputs=_summary_inputs(), agent=agent)
    assert ratings.answered == 3 and residents.answered == 1
    calls = ModelCall.objects.filter(simulation=simulation, profile__isnull=False)
    assert sorted(calls.values_list("task", "profile_id", "model")) == [
        ("importance", cheap, "model-cheap"),
        ("importance", cheap, "model-cheap"),
        ("importance", cheap, "model-cheap"),
        ("summary", main, "model-main"),
    ]
    prices = {main: (Decimal(3), Decimal(15)), cheap: (Decimal("0.15"), Decimal("0.6"))}
    for call in calls:
        assert call.profile_id is not None
        pin, pout = prices[call.profile_id]
        expected = (call.prompt_tokens * pin + call.completion_tokens * pout) / 1_000_000
        assert call.cost == expected.quantize(Decimal("0.00000001")) and call.cost > 0
    usage = ModelUsage.objects.get(simulation=simulation)
    assert usage.cost == sum(call.cost for call in calls)
    shown = api.get(f"/api/simulations/{simulation.pk}/models/").json()
    assert Decimal(shown["cost"]) == usage.cost
    assert shown["routes"] == {"residents": main, "ratings": cheap}
    summary = api.get(f"/api/simulations/{simulation.pk}/model-calls/summary/").json()
    by_task = {row["task"]: Decimal(row["cost"]) for row in summary["by_task"]}
    assert by_task["summary"] == calls.get(task="summary").cost
    assert by_task["importance"] == sum(c.cost for c in calls.filter(task="importance"))
    by_agent = {row["agent_name"]: Decimal(row["cost"]) for row in summary["by_agent"]}
    assert agent is not None and by_agent[agent.name] == usage.cost
    assert Decimal(summary["budget"]["money_used"]) == usage.cost


def _summary_inputs() -> dict[str, Any]:
    return {
        "agent_name": "Pell Marrowind",
        "agent_identity": "Name: Pell Marrowind\nAge: 33\nCurrently: keeps the quay's lanterns",
        "statements": "Pell Marrowind keeps the quay's lanterns",
    }


@pytest.mark.django_db(transaction=True)
def test_a_money_budget_stops_the_simulation_with_its_reason(user: User, api: APIClient) -> None:
    simulation = _simulation(user)
    agent = simulation.agents.order_by("name").first()
    with PolicyServer() as server:
        dear = _profile(api, server, "dear", ("100000", "100000"))  # 0.1 a token
        api.put(
            f"/api/simulations/{simulation.pk}/models/",
            {"routes": {"residents": dear}, "budget_money": "30"},
            format="json",
        )
        with pytest.raises(BudgetExhausted) as stopped:
            for n in range(20):
                llm_run(task=IMPORTANCE, inputs=_inputs(n), agent=agent)
    usage = ModelUsage.objects.get(simulation=simulation)
    paid = ModelCall.objects.filter(simulation=simulation, profile_id=dear)
    assert 0 < paid.count() < 20 and server.answered == paid.count()
    assert usage.cost >= Decimal(30) > usage.cost - paid.order_by("-id")[0].cost
    simulation.refresh_from_db()
    assert simulation.status == SimulationStatus.BUDGET_EXHAUSTED
    assert "in money" in simulation.status_reason and "of 30" in simulation.status_reason
    assert str(stopped.value) == simulation.status_reason


@pytest.mark.django_db(transaction=True)
def test_a_running_simulations_models_cannot_change(user: User, api: APIClient) -> None:
    simulation = _simulation(user)
    Simulation.objects.filter(pk=simulation.pk).update(status=SimulationStatus.RUNNING)
    refused = api.put(
        f"/api/simulations/{simulation.pk}/models/", {"budget_money": "5"}, format="json"
    )
    assert refused.status_code == 409
    unknown = api.put(
        f"/api/simulations/{simulation.pk}/models/", {"routes": {"nonsense": 1}}, format="json"
    )
    assert unknown.status_code in (400, 409)
