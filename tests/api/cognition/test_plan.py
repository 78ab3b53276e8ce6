"""A resident's plan tree: day items > hour blocks > actions, for one sim day."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from tests.api import error_of
from world.models import Agent

from . import ISABELLA, KLAUS, stage


def _plan(api: APIClient, simulation_id: int, query: str = "", who: str = ISABELLA) -> Any:
    response = api.get(f"/api/simulations/{simulation_id}/residents/{quote(who)}/plan/{query}")
    assert response.status_code == 200, response.content
    return response.json()


def _titles(nodes: list[dict[str, Any]]) -> list[str]:
    return [node["description"] for node in nodes]


def _node(nodes: list[dict[str, Any]], description: str) -> dict[str, Any]:
    return next(node for node in nodes if node["description"] == description)


@pytest.mark.django_db
def test_the_current_day_as_a_tree_in_time_order(api: APIClient) -> None:
    simulation = stage(api)
    body = _plan(api, simulation.pk)
    assert body["resident"] == ISABELLA and body["date"] == "2023-02-13"
    assert body["sim_time"] == "2023-02-13T11:30:00Z" and body["include_superseded"] is False
    days = body["items"]
    assert _titles(days) == [
        "wake up and get ready",
        "open and run Hobbs Cafe",
        "have lunch",
        "go to bed",
    ]
    assert {node["level"] for node in days} == {"day"}
    cafe = _node(days, "open and run Hobbs Cafe")
    assert cafe["start"] == "2023-02-13T08:00:00Z" and cafe["duration_minutes"] == 240
    assert cafe["triple"] is None and cafe["current"] is True
    assert _titles(cafe["children"]) == ["prepare the counter", "serve the late-morning customers"]
    serve = cafe["children"][1]
    assert serve["level"] == "hour" and serve["current"] is True
    assert serve["address"] == "the Ville:Hobbs Cafe:cafe"
    # The re-plan dropped "wiping the tables"; its replacement comes in its place.
    actions = serve["children"]
    assert _titles(actions) == [
        "taking orders",
        "making coffee",
        "serving customers",
        "chatting with Klaus",
    ]
    assert [a["start"][11:16] for a in actions] == ["11:00", "11:15", "11:30", "11:45"]
    assert all(a["level"] == "action" and "children" not in a for a in actions)
    assert [a["current"] for a in actions] == [False, False, True, False]
    serving = actions[2]
    assert serving["emoji"] == "🍽️" and serving["superseded"] is False
    assert serving["triple"] == [ISABELLA, "is", "serving customers"]
    assert serving["number"] > serve["number"] > cafe["number"]
    # An action after midnight belongs to the day of the block it was decomposed from.
    bed = _node(days, "go to bed")
    assert _titles(bed["children"]) == ["read before sleeping"]
    assert _titles(bed["children"][0]["children"]) == ["reading a novel"]
    assert _plan(api, simulation.pk, "?date=2023-02-14")["items"] == []


@pytest.mark.django_db
def test_superseded_actions_on_request(api: APIClient) -> None:
    simulation = stage(api)
    body = _plan(api, simulation.pk, "?include_superseded=true")
    assert body["include_superseded"] is True
    serve = _node(
        _node(body["items"], "open and run Hobbs Cafe")["children"],
        "serve the late-morning customers",
    )
    actions = [(a["description"], a["superseded"]) for a in serve["children"]]
    assert actions == [
        ("taking orders", False),
        ("making coffee", False),
        ("serving customers", False),
        ("wiping the tables", True),
        ("chatting with Klaus", False),
    ]


@pytest.mark.django_db
def test_another_day_by_date_by_id_and_bad_dates(api: APIClient) -> None:
    simulation = stage(api)
    isabella = Agent.objects.get(simulation=simulation, name=ISABELLA)
    yesterday = _plan(api, simulation.pk, "?date=2023-02-12", who=str(isabella.pk))
    assert yesterday["resident"] == ISABELLA and yesterday["date"] == "2023-02-12"
    assert _titles(yesterday["items"]) == ["bake bread"]
    assert yesterday["items"][0]["children"] == []
    assert _plan(api, simulation.pk, who=KLAUS)["items"] == []
    base = f"/api/simulations/{simulation.pk}/residents"
    bad = api.get(f"{base}/{quote(ISABELLA)}/plan/?date=13-02-2023")
    assert bad.status_code == 400 and error_of(bad)["code"] == "invalid"
    missing = api.get(f"{base}/Nobody/plan/")
    assert missing.status_code == 404 and error_of(missing)["code"] == "not_found"


@pytest.mark.django_db
def test_one_query_for_the_items(api: APIClient) -> None:
    simulation = stage(api)
    url = f"/api/simulations/{simulation.pk}/residents/{quote(ISABELLA)}/plan/"
    with CaptureQueriesContext(connection) as captured:
        assert api.get(url).status_code == 200
    plan_queries = [q["sql"] for q in captured if "agents_planitem" in q["sql"]]
    assert len(plan_queries) == 1, plan_queries
    assert len(captured) <= 4  # token, simulation, resident, items
