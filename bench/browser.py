"""The viewer in headless Chromium for scripts (bench viewer_fps, bench.screens): the app
served on 127.0.0.1 by a thread of this process, a page logged in as a user."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.contrib.auth.models import User
from django.contrib.staticfiles.handlers import StaticFilesHandler
from django.test import Client
from django.test.testcases import LiveServerThread
from playwright.sync_api import Page, sync_playwright


@contextmanager
def served() -> Iterator[str]:
    """The app (with its static files, from the apps' folders) on a free port: its URL."""
    thread = LiveServerThread(
        "127.0.0.1", static_handler=StaticFilesHandler, connections_override={}, port=0
    )
    thread.daemon = True
    thread.start()
    thread.is_ready.wait()
    if thread.error:
        raise thread.error
    try:
        yield f"http://127.0.0.1:{thread.port}"
    finally:
        thread.terminate()


@contextmanager
def viewer_page(owner: User, width: int = 1440, height: int = 900) -> Iterator[tuple[Page, str]]:
    """A headless Chromium page (the system's, as the browser tests use) with `owner`'s
    session, and the served app's URL."""
    with viewer_pages([owner], width, height) as (pages, url):
        yield pages[0], url


@contextmanager
def viewer_pages(
    users: list[User], width: int = 1440, height: int = 900
) -> Iterator[tuple[list[Page], str]]:
    """A page for each user, each in a browser context of its own with that user's
    session, and the served app's URL. Playwright keeps an event loop running in this
    thread, which Django takes for an async context: the ORM is used between browser calls
    only, so its check is lifted meanwhile (as tests/browser/conftest.py does)."""
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    sessions = []
    for user in users:
        client = Client()
        client.force_login(user)
        sessions.append(client.cookies[settings.SESSION_COOKIE_NAME].value)
    with served() as url, sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=shutil.which("chromium") or "/usr/bin/chromium", headless=True
        )
        pages = []
        for session in sessions:
            context = chromium.new_context(viewport={"width": width, "height": height})
            context.add_cookies(
                [{"name": settings.SESSION_COOKIE_NAME, "value": session, "url": url}]
            )
            page = context.new_page()
            page.set_default_timeout(60_000)
            pages.append(page)
        try:
            yield pages, url
        finally:
            chromium.close()


def open_viewer(page: Page, url: str, simulation_id: int) -> None:
    """The simulation's viewer, once it has drawn the town."""
    page.goto(f"{url}/simulations/{simulation_id}/")
    page.wait_for_selector("#viewer[data-ready=true]")


def scrub(page: Page, step: int) -> None:
    """The replay slider moved to `step`, as a user does, until the page shows it."""
    page.evaluate(
        "(step) => { const s = document.getElementById('slider'); s.value = String(step);"
        " s.dispatchEvent(new Event('input')); }",
        step,
    )
    page.wait_for_function(f"window.smallvilleViewer.shownStep === {step}")
