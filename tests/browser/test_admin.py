"""The Django admin in a real browser with DEBUG off: its stylesheets come from WhiteNoise."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect

from tests.browser.served import LiveServer

from .traffic import Traffic

TRANSPARENT = {"rgba(0, 0, 0, 0)", "transparent"}


def _header_background(page: Page) -> str:
    return page.locator("#header").evaluate("e => getComputedStyle(e).backgroundColor")


def test_admin_has_its_styles(
    live_server: LiveServer, page: Page, traffic: Traffic, artifact, db: None
) -> None:
    assert not settings.DEBUG
    User.objects.create_superuser(username="staff", password="staff-password-1")

    page.goto(f"{live_server.url}/admin/")
    page.wait_for_url(f"{live_server.url}/admin/login/?next=/admin/")
    assert _header_background(page) not in TRANSPARENT
    artifact(page, "admin-login")

    page.fill("#id_username", "staff")
    page.fill("#id_password", "staff-password-1")
    page.click("input[type=submit]")
    page.wait_for_url(f"{live_server.url}/admin/")

    page.goto(f"{live_server.url}/admin/world/simulation/")
    expect(page.locator("#changelist")).to_be_visible()
    assert _header_background(page) not in TRANSPARENT
    # The changelist's own stylesheet too: its filter sidebar or toolbar is laid out.
    loaded = traffic.static()
    for css in ("admin/css/base.css", "admin/css/changelists.css"):
        assert any(url.endswith(css) for url in loaded), css
    artifact(page, "admin-changelist")
    assert traffic.offsite() == []
    assert traffic.failed() == []
