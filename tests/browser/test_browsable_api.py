"""DRF's browsable API in a real browser with DEBUG off, for a user logged in through the
site's login page (the same session): styled by its own files from WhiteNoise."""

from __future__ import annotations

from django.contrib.auth.models import User
from playwright.sync_api import Page, expect

from tests.browser.served import LiveServer

from .traffic import Traffic


def test_browsable_api_has_its_styles(
    live_server: LiveServer, page: Page, traffic: Traffic, login, artifact, db: None
) -> None:
    alice = User.objects.create_user(username="alice", password="alice-password-1")
    login(page, alice, "alice-password-1")
    page.goto(f"{live_server.url}/api/simulations/")
    expect(page.locator(".response-info")).to_contain_text('"count": 0')
    navbar = page.locator(".navbar").evaluate("e => getComputedStyle(e).backgroundColor")
    assert navbar not in {"rgba(0, 0, 0, 0)", "transparent"}
    assert any(url.endswith("rest_framework/css/bootstrap.min.css") for url in traffic.static())
    artifact(page, "browsable-api")
    assert traffic.offsite() == []
    assert traffic.failed() == []
