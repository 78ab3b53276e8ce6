"""Browser fixtures: the system's Chromium driven by Playwright against a live server that
serves static files as production does (collectstatic, then WhiteNoise, DEBUG off).

Playwright's sync API keeps an asyncio event loop running in the test's thread while it is
started; Django then refuses database use in that thread (SynchronousOnlyOperation),
although the tests only call the ORM synchronously between browser calls. While the
browser is up, DJANGO_ALLOW_ASYNC_UNSAFE lifts that check. Both live for this package's
tests only (scope "package"), so the rest of a `make pytest` run keeps Django's check and
sees no running loop.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.core.handlers.wsgi import WSGIHandler
from django.core.management import call_command
from django.test.utils import override_settings
from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright
from pytest_django.live_server_helper import LiveServer

from .traffic import Traffic

ARTIFACTS = Path(settings.BASE_DIR) / "test-artifacts" / "screens"
HOST = "127.0.0.1"


@pytest.fixture(scope="package")
def collected_static(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """`collectstatic` into a STATIC_ROOT of this run's (as `make static` does into
    staticfiles/), so WhiteNoise serves what production would serve and parallel runs
    never write each other's files. The rest of the run keeps the usual STATIC_ROOT."""
    root = tmp_path_factory.mktemp("staticfiles")
    with override_settings(STATIC_ROOT=root):
        call_command("collectstatic", "--noinput", verbosity=0)
        yield root


@pytest.fixture(scope="package")
def live_server(collected_static: Path) -> Iterator[LiveServer]:
    """pytest-django's live server on 127.0.0.1, without its StaticFilesHandler.

    pytest-django wraps the app in Django's StaticFilesHandler, which serves static files
    from the apps' folders whatever DEBUG says: the admin would have its CSS even with
    WhiteNoise gone. Here the app is served as gunicorn serves it, so static files come
    from WhiteNoise and the collected STATIC_ROOT, with DEBUG off.
    """
    from django.test.testcases import LiveServerThread

    assert not settings.DEBUG
    server = LiveServer(HOST, start=False)
    server.thread = LiveServerThread(
        HOST, static_handler=_NoStaticHandler, connections_override={}, port=0
    )
    server.thread.daemon = True
    server.start()
    yield server
    server.stop()


class _NoStaticHandler(WSGIHandler):
    """Passes every request to the app (LiveServerThread wants a handler class here)."""

    def __init__(self, application: WSGIHandler) -> None:
        self.application = application  # no load_middleware: the app has its own

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        return self.application(environ, start_response)


@contextmanager
def _async_unsafe_allowed() -> Iterator[None]:
    before = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        yield
    finally:
        if before is None:
            del os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"]
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = before


@pytest.fixture(scope="package")
def browser() -> Iterator[Browser]:
    """Headless Chromium: the Debian package (`make test` installs it), not a download."""
    with _async_unsafe_allowed(), sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=shutil.which("chromium") or "/usr/bin/chromium", headless=True
        )
        yield chromium
        chromium.close()


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    yield context
    context.close()


@pytest.fixture
def page(context: BrowserContext) -> Page:
    page = context.new_page()
    page.set_default_timeout(15_000)
    return page


@pytest.fixture
def traffic(page: Page, live_server: LiveServer) -> Traffic:
    """What `page` asks for and gets, to check that nothing leaves the server."""
    traffic = Traffic(origin=live_server.url)
    traffic.watch(page)
    return traffic


@pytest.fixture
def login(live_server: LiveServer) -> Callable[[Page, User, str], None]:
    """Log `page` in as a user through the login form (a real POST, the Django session)."""

    def log_in(page: Page, user: User, password: str) -> None:
        page.goto(f"{live_server.url}/accounts/login/")
        page.fill("input[name=username]", user.get_username())
        page.fill("input[name=password]", password)
        page.click("button[type=submit]")
        page.wait_for_url(f"{live_server.url}/")

    return log_in


@pytest.fixture
def artifact() -> Callable[[Page, str], Path]:
    """Save a screenshot of `page` to test-artifacts/screens/NAME.png."""

    def save(page: Page, name: str) -> Path:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        page.screenshot(path=str(path))  # the viewport: Redoc's full page is 40,000 px tall
        return path

    return save
