"""A simulation made from the web face: a logged-in user picks a base (the shipped village
here, not the Ville), lands in its viewer, which draws that town and its residents, and
runs it, all without writing a request."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect

from agents.bases.services import base_shipped
from tests.browser.drawn import near, pixel, resident_rgb
from tests.browser.served import LiveServer
from tests.runtime.workers import wait_for
from world.models import Simulation

from .traffic import Traffic

pytestmark = pytest.mark.django_db(transaction=True)
VILLAGE = "base_brindle_green_n5"


@pytest.fixture
def carol(db: None) -> User:
    return User.objects.create_user(username="carol", password="carol-password-1")


def test_a_user_makes_a_village_simulation_opens_and_runs_it(
    live_server: LiveServer, page: Page, traffic: Traffic, login, artifact, carol: User
) -> None:
    village = base_shipped(VILLAGE)
    login(page, carol, "carol-password-1")
    page.select_option(".new-simulation select[name=base]", value=str(village.pk))
    page.fill(".new-simulation input[name=name]", "Carol's village")
    page.click(".new-simulation button[type=submit]")
    page.wait_for_selector("#viewer[data-ready=true]", timeout=60_000)

    made = Simulation.objects.get(owner=carol)
    assert (made.name, made.base, made.town.name) == ("Carol's village", VILLAGE, "brindle_green")
    assert page.url == f"{live_server.url}/simulations/{made.pk}/"
    viewer = page.evaluate(
        "() => ({names: window.smallvilleViewer.residents.map((r) => r.name),"
        " width: window.smallvilleViewer.town.map.width})"
    )
    residents = sorted(made.agents.values_list("name", flat=True))
    assert sorted(viewer["names"]) == residents and len(residents) == 5
    assert viewer["width"] == made.town.width  # the village's map, not the Ville's
    # Each resident drawn where the log has it, a figure in its own shirt.
    drawn = page.evaluate("() => ({points: window.smallvilleViewer.town.drawn,"
                          " tiles: Array.from(window.smallvilleViewer.state.tiles)})")  # fmt: skip
    for i, name in enumerate(viewer["names"]):
        agent = made.agents.get(name=name)
        assert drawn["tiles"][2 * i : 2 * i + 2] == [agent.tile_x, agent.tile_y], name
        x, y = drawn["points"][i]
        assert near(pixel(page, x, y)[:3], resident_rgb(page, i)), name
    artifact(page, "new-simulation-village")

    with live_server.worker():
        page.fill("#run-steps", "6")
        page.click("#run")
        wait_for(lambda: Simulation.objects.get(pk=made.pk).step == 6, 120, "the run")
    page.wait_for_function("window.smallvilleViewer.shownStep === 6", timeout=30_000)
    assert traffic.offsite() == []


def test_a_base_the_user_may_not_use_is_refused_and_nothing_is_made(
    live_server: LiveServer, page: Page, login, carol: User
) -> None:
    login(page, carol, "carol-password-1")
    page.evaluate(
        "() => { const o = document.createElement('option'); o.value = '999999';"
        " document.querySelector('.new-simulation select[name=base]').append(o);"
        " o.selected = true; }"
    )
    page.click(".new-simulation button[type=submit]")
    expect(page.locator(".new-simulation .error")).to_contain_text("999999")
    assert not Simulation.objects.filter(owner=carol).exists()
