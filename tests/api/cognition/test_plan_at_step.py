"""A resident's plan as it stood at an earlier step (what a replay shows): the items made by
then, dropped or not as then, and the items under way at that step's sim time."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from tests.village import SMITH, village_morning, village_simulation


def _plan(api: APIClient, simulation_id: int, query: str = "") -> Any:
    url = f"/api/simulations/{simulation_id}/residents/{quote(SMITH)}/plan/{query}"
    response = api.get(url)
    assert response.status_code == 200, response.content
    return response.json()


def _actions(body: dict[str, Any]) -> list[tuple[str, bool, bool]]:
    """The actions of the plan: (description, superseded, current), in time order."""
    [day] = body["items"]
    [block] = day["children"]
    return [(a["description"], a["superseded"], a["current"]) for a in block["children"]]


@pytest.mark.django_db
def test_the_plan_at_a_step_is_the_plan_as_it_stood_then(api: APIClient, user: User) -> None:
    simulation = village_simulation(user)
    village_morning(simulation)  # made at step 1, re-planned at step 3, now at step 10

    before = _plan(api, simulation.pk, "?step=0")
    assert before["items"] == [] and before["step"] == 0

    first = _plan(api, simulation.pk, "?step=1")
    assert (first["step"], first["sim_time"], first["date"]) == (
        1,
        "2024-06-03T07:05:00Z",
        "2024-06-03",
    )
    # Made at step 1; the re-plan of step 3 had dropped nothing yet.
    assert _actions(first) == [
        ("stoke the fire", False, True),
        ("hammer horseshoes", False, False),
        ("cool the shoes", False, False),
        ("sweep the floor", False, False),
    ]
    assert first["items"][0]["current"] and first["items"][0]["children"][0]["current"]

    at_four = _plan(api, simulation.pk, "?step=4&include_superseded=true")
    assert at_four["sim_time"] == "2024-06-03T07:20:00Z"
    assert _actions(at_four) == [
        ("stoke the fire", False, False),
        ("hammer horseshoes", True, False),
        ("fetch water from the well", False, True),
        ("cool the shoes", True, False),
        ("sweep the floor", True, False),
        ("buy salve for a burn", False, False),
    ]
    # Without a step: the last step's plan, as before.
    live = _plan(api, simulation.pk)
    assert (live["step"], live["sim_time"]) == (10, "2024-06-03T07:50:00Z")
    assert _actions(live) == [
        ("stoke the fire", False, False),
        ("fetch water from the well", False, False),
        ("buy salve for a burn", False, True),
    ]
    assert _plan(api, simulation.pk, "?step=10") == live


@pytest.mark.django_db
@pytest.mark.parametrize("step", ["11", "-1", "soon", ""])
def test_a_step_not_committed_is_a_400_naming_it(api: APIClient, user: User, step: str) -> None:
    simulation = village_simulation(user)
    village_morning(simulation)
    url = f"/api/simulations/{simulation.pk}/residents/{quote(SMITH)}/plan/?step={step}"
    response = api.get(url)
    assert response.status_code == 400, response.content
    assert "step" in response.content.decode()
