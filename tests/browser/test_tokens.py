"""The API tokens page in a real browser: a logged-in user makes a token, sees its key
once, uses it, and revokes it with a click; every token that lets a program in as her is
listed, those made from the shell and DRF's legacy one too."""

from __future__ import annotations

import io
from collections.abc import Callable

import pytest
import requests
from django.contrib.auth.models import User
from django.core.management import call_command
from playwright.sync_api import Page, expect
from rest_framework.authtoken.models import Token

from tests.browser.served import LiveServer

from .traffic import Traffic

PASSWORD = "moth-password-1"


@pytest.fixture
def moth(db: None) -> User:
    return User.objects.create_user(username="moth", password=PASSWORD)


def test_make_use_and_revoke_a_token(
    live_server: LiveServer,
    page: Page,
    traffic: Traffic,
    login: Callable[[Page, User, str], None],
    artifact: Callable[[Page, str], object],
    moth: User,
) -> None:
    login(page, moth, PASSWORD)
    page.click("a[href='/accounts/tokens/']")
    expect(page.locator("h1")).to_have_text("Your API tokens")
    page.fill("#token-name", "orchard weather station")
    page.click("form.make-token button[type=submit]")
    key = page.locator("[data-testid=new-key]").inner_text().strip()
    assert key.startswith("sv_")
    artifact(page, "tokens-made")

    api = f"{live_server.url}/api/tokens/"
    answer = requests.get(api, headers={"Authorization": f"Token {key}"}, timeout=10)
    assert answer.status_code == 200
    assert [t["name"] for t in answer.json()["results"]] == ["orchard weather station"]

    page.reload()  # the key is shown once: not after a reload
    assert page.locator("[data-testid=new-key]").count() == 0
    row = page.locator("tr[data-token='orchard weather station']")
    expect(row.locator("code")).to_have_text(key[:10] + "…")
    row.locator("button.revoke").click()
    expect(page.locator("tr[data-token='orchard weather station'] .revoked")).to_be_visible()
    refused = requests.get(api, headers={"Authorization": f"Token {key}"}, timeout=10)
    assert refused.status_code == 401

    page.fill("#token-name", "   ")
    page.click("form.make-token button[type=submit]")
    expect(page.locator("p.error")).to_contain_text("name")
    assert traffic.offsite() == []
    # The refused name is the page's 400 (with its form again); nothing else failed.
    assert {(url.removeprefix(live_server.url), status) for url, status in traffic.failed()} == {
        ("/accounts/tokens/", 400)
    }


def test_the_page_lists_every_token_that_lets_a_program_in(
    live_server: LiveServer,
    page: Page,
    login: Callable[[Page, User, str], None],
    artifact: Callable[[Page, str], object],
    moth: User,
) -> None:
    # Made from the shell, as the docs say: the command of ours and DRF's legacy one.
    made = io.StringIO()
    call_command("make_token", "moth", "--name", "lantern trap", stdout=made, stderr=io.StringIO())
    key = made.getvalue().strip()
    call_command("drf_create_token", "moth", stdout=io.StringIO())
    legacy = Token.objects.get(user=moth).key
    api = f"{live_server.url}/api/simulations/"
    for each in (key, legacy):
        assert requests.get(api, headers={"Authorization": f"Token {each}"}, timeout=10).ok

    login(page, moth, PASSWORD)
    page.goto(f"{live_server.url}/accounts/tokens/")
    assert page.locator("p.empty").count() == 0
    expect(page.locator("tr[data-token='lantern trap'] code")).to_have_text(key[:10] + "…")
    row = page.locator("tr[data-token=legacy]")
    expect(row.locator("code")).to_have_text(legacy[:10] + "…")
    artifact(page, "tokens-legacy")

    row.locator("button.revoke").click()
    expect(page.locator("tr[data-token=legacy]")).to_have_count(0)
    refused = requests.get(api, headers={"Authorization": f"Token {legacy}"}, timeout=10)
    assert refused.status_code == 401
    assert requests.get(api, headers={"Authorization": f"Token {key}"}, timeout=10).ok
