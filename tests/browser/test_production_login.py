"""A person on the production server (gunicorn and its uvicorn workers, as `make serve`
runs them) logs in through the login form and opens what a session or a cookie is needed
for: the landing page with her simulation, its viewer, Swagger UI; a staff member logs in
through the admin's own form. Each page is drawn, not only answered (these pages once came
back empty under this server: their Set-Cookie header did not pass)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Browser, Page, expect

from agents.services import simulation_create_from_base
from tests.browser.served import LiveServer
from tests.browser.traffic import Traffic
from tests.factories import N3

Artifact = Callable[[Page, str], Path]

pytestmark = pytest.mark.django_db(transaction=True)


def _open(page: Page, url: str) -> None:
    response = page.goto(url)
    assert response is not None and response.status == 200, url


def test_logging_in_by_the_forms_opens_every_page(
    live_server: LiveServer, browser: Browser, page: Page, traffic: Traffic, artifact: Artifact
) -> None:
    wren = User.objects.create_user(username="wren", password="wren-hedge-password-1")
    survey = simulation_create_from_base(owner=wren, base=N3, name="Wren's hedgerow survey")
    User.objects.create_superuser(username="heron", password="heron-pond-password-1")

    _open(page, f"{live_server.url}/accounts/login/")
    page.fill("input[name=username]", "wren")
    page.fill("input[name=password]", "wren-hedge-password-1")
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")
    expect(page.locator(".site-user")).to_have_text("wren")
    listed = page.locator(".simulation-list li > a:not(.delete)")
    expect(listed).to_have_text(["Wren's hedgerow survey"])
    artifact(page, "production-landing")

    listed.click()
    page.wait_for_url(f"{live_server.url}/simulations/{survey.pk}/")
    page.wait_for_selector("#viewer[data-ready=true]")
    expect(page.locator(".viewer-title")).to_have_text("Wren's hedgerow survey")
    residents = sorted(survey.agents.values_list("name", flat=True))
    picked = page.locator("#resident-pick option").all_inner_texts()
    assert sorted(name for name in picked if name in residents) == residents
    artifact(page, "production-viewer")

    _open(page, f"{live_server.url}/api/docs/")
    expect(page.locator(".info .title")).to_contain_text("Smallville API")
    expect(page.locator(".opblock").first).to_be_visible()
    artifact(page, "production-swagger-ui")
    assert traffic.offsite() == []
    assert traffic.failed() == []

    # The admin, in a browser of its own: a staff member through the admin's login form.
    staff = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        admin = staff.new_page()
        admin.set_default_timeout(15_000)
        _open(admin, f"{live_server.url}/admin/login/?next=/admin/")
        admin.fill("#id_username", "heron")
        admin.fill("#id_password", "heron-pond-password-1")
        admin.click("input[type=submit]")
        admin.wait_for_url(f"{live_server.url}/admin/")
        expect(admin.locator("#site-name")).to_be_visible()
        expect(admin.locator("#user-tools")).to_contain_text("heron")
        _open(admin, f"{live_server.url}/admin/world/simulation/")
        expect(admin.locator("#result_list")).to_contain_text("Wren's hedgerow survey")
        artifact(admin, "production-admin")
    finally:
        staff.close()
