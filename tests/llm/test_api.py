"""The ledger over HTTP: a simulation's calls (filtered, paginated) and its summary."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from rest_framework.test import APIClient

from agents.services import residents_seed_memories
from agents.tasks.importance import importance_rate
from llm.port import ModelUnavailable
from tests.api import error_of
from tests.model_server import ModelServer, error, ok
from world.models import Simulation

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.llm.urls")]


def calls_url(simulation: Simulation) -> str:
    return f"/api/simulations/{simulation.pk}/model-calls/"


@pytest.fixture
def rated(simulation: Simulation) -> Simulation:
    """Every seed statement of every resident rated offline: 15 calls."""
    residents_seed_memories(simulation=simulation)
    return simulation


def test_list_is_paginated_newest_first(api: APIClient, rated: Simulation) -> None:
    body = api.get(calls_url(rated), {"limit": 4}).json()
    assert body["count"] == 15 and len(body["results"]) == 4
    ids = [row["id"] for row in body["results"]]
    assert ids == sorted(ids, reverse=True)
    row = body["results"][0]
    assert row["task"] == "importance" and row["backend"] == "offline"
    assert row["prompt"].startswith("Here is a brief description of")
    assert row["attempt_log"][0]["outcome"] == "ok"
    assert row["output"]["importance"] in range(1, 11)


def test_filters(api: APIClient, rated: Simulation, openai_llm: ModelServer, settings: Any) -> None:
    settings.SMALLVILLE_LLM_MAX_RETRIES = 0
    klaus = rated.agents.get(name="Klaus Mueller")
    openai_llm.push(error(500), ok({"importance": 4}))
    with pytest.raises(ModelUnavailable):
        importance_rate(agent=klaus, memory="Klaus is writing")
    importance_rate(agent=klaus, memory="Klaus is writing")

    def count(**params: str) -> int:
        return int(api.get(calls_url(rated), params).json()["count"])

    assert count() == 17
    assert count(agent="Klaus Mueller") == 7
    assert count(backend="openai") == 2
    assert count(has_error="true") == 1
    assert count(has_error="false") == 16
    assert count(task="importance", backend="openai", has_error="false") == 1
    assert count(task="reflection") == 0


def test_summary_per_task_agent_model_and_hour(api: APIClient, rated: Simulation) -> None:
    Simulation.objects.filter(pk=rated.pk).update(budget_calls=100)
    response = api.get(f"{calls_url(rated)}summary/")
    assert response.status_code == 200
    summary = response.json()
    totals = summary["totals"]
    assert totals["calls"] == 15 and totals["failed"] == 0 and totals["attempts"] == 15
    assert totals["tokens"] == totals["prompt_tokens"] + totals["completion_tokens"] > 0
    assert summary["budget"] == {
        "calls": 100,
        "tokens": None,
        "calls_used": 15,
        "tokens_used": totals["tokens"],
        "money": None,  # no money budget: calls on the settings cost nothing
        "money_used": "0.00000000",
    }
    assert [row["task"] for row in summary["by_task"]] == ["importance"]
    assert {row["agent_name"]: row["calls"] for row in summary["by_agent"]} == {
        "Isabella Rodriguez": 5,
        "Klaus Mueller": 5,
        "Maria Lopez": 5,
    }
    assert summary["by_model"][0]["backend"] == "offline"
    (hour,) = summary["by_sim_hour"]
    assert hour["calls"] == 15
    assert hour["sim_hour"].startswith(rated.start_time.strftime("%Y-%m-%dT%H:00:00"))


def test_another_users_simulation_is_not_found(other_api: APIClient, rated: Simulation) -> None:
    for url in (calls_url(rated), f"{calls_url(rated)}summary/"):
        response = other_api.get(url)
        assert response.status_code == 404
        assert error_of(response)["code"] == "not_found"


def test_anonymous_is_refused(rated: Simulation) -> None:
    assert APIClient().get(calls_url(rated)).status_code == 401


@pytest.mark.urls("smallville_project.urls")
def test_admin_shows_the_ledger_read_only(rated: Simulation, client: Client) -> None:
    admin = User.objects.create_superuser("root", "root@example.com", "root-password-1")
    client.force_login(admin)
    listing = client.get("/admin/llm/modelcall/?has_error=no&task=importance")
    assert listing.status_code == 200 and b"Isabella Rodriguez" in listing.content
    call = rated.model_calls.first()
    assert call is not None
    detail = client.get(f"/admin/llm/modelcall/{call.pk}/change/")
    assert detail.status_code == 200
    assert b"Here is a brief description of" in detail.content
    assert client.get("/admin/llm/modelcall/add/").status_code == 403
