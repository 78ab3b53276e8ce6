"""The landing page in a real browser: what Smallville is, and the links a newcomer needs."""

from __future__ import annotations

from playwright.sync_api import Page
from pytest_django.live_server_helper import LiveServer


def test_landing_anonymous(live_server: LiveServer, page: Page, artifact, requested) -> None:
    page.goto(f"{live_server.url}/")
    assert page.title().startswith("Smallville")
    assert "generative agents" in page.inner_text("main")
    for href in ("/api/docs/", "/api/redoc/", "/admin/", "/accounts/login/"):
        assert page.locator(f"main a[href^='{href}']").count() >= 1, href
    artifact(page, "landing-anonymous")
