"""The viewer's pace: a run started from the page at "a step a second" is run by a real
worker at that pace, and the page says so."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect

from agents.services import simulation_create_from_base
from tests.browser.served import LiveServer
from tests.factories import N3
from tests.runtime.workers import wait_for
from world.models import Event, Simulation

PASSWORD = "alice-password-1"
Login = Callable[[Page, User, str], None]
Artifact = Callable[[Page, str], Path]

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_run_started_at_a_step_a_second_keeps_it_and_the_page_says_so(
    live_server: LiveServer, page: Page, user: User, login: Login, artifact: Artifact
) -> None:
    simulation = simulation_create_from_base(
        owner=user, base=N3, seed=5, config={"cognition": "minimal"}
    )
    login(page, user, PASSWORD)
    page.goto(f"{live_server.url}/simulations/{simulation.pk}/")
    page.wait_for_selector("#viewer[data-ready=true]")
    expect(page.locator("#pace")).to_have_text("")
    with live_server.worker():
        page.fill("#run-steps", "4")
        page.select_option("#run-pace", label="a step a second")
        page.click("#run")
        expect(page.locator("#pace")).to_have_text(
            f"at {simulation.sec_per_step}\N{MULTIPLICATION SIGN} real time", timeout=15_000
        )
        wait_for(
            lambda: Simulation.objects.get(pk=simulation.pk).status != "running", 90, "the run"
        )
    simulation.refresh_from_db()
    assert simulation.status == "idle" and simulation.step == 4, simulation.status_reason
    assert simulation.pace == simulation.sec_per_step  # a 10 s step each wall second
    # four steps, each decided no sooner than a second after the one before
    times = sorted(
        Event.objects.filter(simulation=simulation, step__gte=1).values_list("step", "created_at")
    )
    first, last = times[0][1], times[-1][1]
    assert (last - first).total_seconds() >= 2.0, times
    artifact(page, "viewer-paced-run")
