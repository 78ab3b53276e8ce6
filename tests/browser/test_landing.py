"""The landing page in a real browser: what Smallville is, the links a newcomer needs, and a
logged-in user's own simulations (never another user's)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect

from agents.services import simulation_create_from_base
from tests.browser.served import LiveServer
from tests.factories import N3
from world.models import Simulation

from .traffic import Traffic

LINKS = ("/api/docs/", "/api/redoc/", "/admin/", "/accounts/login/")


def test_landing_anonymous(live_server: LiveServer, page: Page, traffic: Traffic, artifact) -> None:
    response = page.goto(f"{live_server.url}/")
    assert response is not None and response.status == 200
    assert page.title().startswith("Smallville")
    expect(page.locator("h1")).to_have_text("Smallville")
    assert "generative agents of Park et al." in page.inner_text("main")
    for href in LINKS:
        assert page.locator(f"main a[href^='{href}']").count() >= 1, href
    # Our stylesheet is applied: the header is the site's green, not the default.
    header = page.locator(".site-header").evaluate("e => getComputedStyle(e).backgroundColor")
    assert header == "rgb(47, 111, 79)"
    assert page.locator(".simulations").count() == 0
    artifact(page, "landing-anonymous")
    assert traffic.offsite() == []
    assert traffic.failed() == []
    assert any(url.endswith("/static/web/site.css") for url in traffic.static())


@pytest.fixture
def alice(db: None) -> User:
    return User.objects.create_user(username="alice", password="alice-password-1")


@pytest.fixture
def simulations(alice: User) -> tuple[Simulation, Simulation]:
    bob = User.objects.create_user(username="bob", password="bob-password-1")
    mine = simulation_create_from_base(owner=alice, base=N3, name="Alice's Valentine's party")
    theirs = simulation_create_from_base(owner=bob, base=N3, name="Bob's mayoral race")
    return mine, theirs


def test_landing_logged_in_lists_own_simulations(
    live_server: LiveServer,
    page: Page,
    traffic: Traffic,
    login,
    artifact,
    alice: User,
    simulations: tuple[Simulation, Simulation],
) -> None:
    mine, theirs = simulations
    login(page, alice, "alice-password-1")
    listed = page.locator(".simulation-list li > a:not(.delete)")
    expect(listed).to_have_count(1)
    expect(listed).to_have_text("Alice's Valentine's party")
    assert listed.get_attribute("href") == f"/simulations/{mine.pk}/"
    assert page.locator(f"a[href^='/simulations/{theirs.pk}/']").count() == 0
    assert "Bob's mayoral race" not in page.content()
    expect(page.locator(".site-user")).to_have_text("alice")
    artifact(page, "landing-logged-in")

    # Logging out (a POST with the CSRF token) brings back the anonymous page.
    page.click("text=Log out")
    page.wait_for_url(f"{live_server.url}/")
    expect(page.locator(".simulations")).to_have_count(0)
    expect(page.locator(".site-nav a[href='/accounts/login/']")).to_be_visible()
    assert traffic.offsite() == []
    assert traffic.failed() == []


def test_login_refuses_a_wrong_password(
    live_server: LiveServer, page: Page, traffic: Traffic, artifact, alice: User
) -> None:
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("input[name=username]", "alice")
    page.fill("input[name=password]", "not-her-password")
    page.click("button[type=submit]")
    expect(page.locator(".error")).to_contain_text("did not match")
    assert page.url.startswith(f"{live_server.url}/accounts/login/")
    artifact(page, "login-refused")
    page.goto(f"{live_server.url}/")
    expect(page.locator(".simulations")).to_have_count(0)
    assert traffic.offsite() == []
    assert traffic.failed() == []
