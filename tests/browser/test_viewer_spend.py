"""The viewer's spend panel in a real browser: what a run's model calls cost, in total,
per task and per resident, as the ledger records them at the profiles' prices."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.db.models import Sum
from playwright.sync_api import Page
from rest_framework.test import APIClient

from agents.services import simulation_create_from_base
from agents.tasks.importance import IMPORTANCE
from llm.models import ModelCall
from llm.policy_server import PolicyServer
from llm.port import llm_run
from tests.browser.served import LiveServer
from tests.factories import N3

PASSWORD = "alice-password-1"
Login = Callable[[Page, User, str], None]
Artifact = Callable[[Page, str], Path]

pytestmark = pytest.mark.django_db(transaction=True)


def _rating(name: str, n: int) -> dict[str, str]:
    return {
        "agent_name": name,
        "agent_identity": f"Name: {name}\nAge: 41",
        "memory": f"{name} mended {n} nets on the jetty",
    }


def _rows(page: Page, by: str) -> dict[str, list[str]]:
    cells = page.eval_on_selector_all(
        f".spend-table[data-by={by}] tbody tr",
        "rows => rows.map(r => [...r.cells].map(c => c.textContent))",
    )
    return {row[0]: row[1:] for row in cells}


def test_the_viewer_shows_spend_per_task_and_per_resident(
    live_server: LiveServer,
    page: Page,
    user: User,
    api: APIClient,
    login: Login,
    artifact: Artifact,
) -> None:
    simulation = simulation_create_from_base(owner=user, base=N3, seed=3)
    first, second = simulation.agents.order_by("name")[:2]
    with PolicyServer() as server:
        made = api.post(
            "/api/profiles/",
            {
                "name": "priced",
                "base_url": server.base_url,
                "model": "model-priced",
                "send_task": True,
                "input_price": "3",
                "output_price": "15",
            },
            format="json",
        )
        assert made.status_code == 201, made.json()
        routed = api.put(
            f"/api/simulations/{simulation.pk}/models/",
            {"routes": {"residents": made.json()["id"]}},
            format="json",
        )
        assert routed.status_code == 200, routed.json()
        for n in range(3):
            llm_run(task=IMPORTANCE, inputs=_rating(first.name, n), agent=first)
        llm_run(task=IMPORTANCE, inputs=_rating(second.name, 9), agent=second)
    calls = ModelCall.objects.filter(simulation=simulation)
    spent = calls.aggregate(cost=Sum("cost"))["cost"]
    assert spent > 0

    login(page, user, PASSWORD)
    page.goto(f"{live_server.url}/simulations/{simulation.pk}/")
    page.wait_for_selector("#viewer[data-ready=true]")
    page.wait_for_selector(".spend-table[data-by=task] tbody tr")
    total = page.inner_text("#spend-total")
    # The seed memories were rated when the simulation was made (offline, free): in it too.
    assert total.startswith(f"{calls.count()} calls, "), total
    shown_total = Decimal(total.split("spend ")[1].split()[0])
    assert shown_total == pytest.approx(spent, rel=Decimal("0.05")), (
        total,
        spent,
    )  # two digits shown

    tasks = _rows(page, "task")
    assert next(iter(tasks)) == "importance"  # the only task that cost money: first
    for task, shown in tasks.items():
        assert shown[0] == str(calls.filter(task=task).count()), (task, shown)
    residents = _rows(page, "agent_name")
    assert list(residents)[:2] == [first.name, second.name]  # the costliest first
    for agent in (first, second):
        mine = calls.filter(agent=agent)
        tokens = sum(c.prompt_tokens + c.completion_tokens for c in mine)
        assert residents[agent.name][:2] == [str(mine.count()), f"{tokens:,}"]
        # The money of a row is the ledger's, at the profile's prices.
        ledger = mine.aggregate(cost=Sum("cost"))["cost"]
        assert Decimal(residents[agent.name][2]) == pytest.approx(ledger, rel=Decimal("0.05"))
    artifact(page, "viewer-spend")
