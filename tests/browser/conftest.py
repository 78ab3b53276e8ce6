"""Browser fixtures: the system's Chromium driven by Playwright against the production
server (gunicorn and its uvicorn workers, as `make serve` starts them), which serves static
files as production does (collectstatic, then WhiteNoise, DEBUG off).

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
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test.utils import override_settings
from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright

from tests.production_server import served_database_url

from .served import LiveServer
from .traffic import Traffic

ARTIFACTS = Path(settings.BASE_DIR) / "test-artifacts" / "screens"


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
def live_server(collected_static: Path, django_db_setup: None) -> Iterator[LiveServer]:
    """The production server on 127.0.0.1 (tests/browser/served.py) on the test database,
    started once for the package: DEBUG off, static files from WhiteNoise and this run's
    STATIC_ROOT, the test process's cache key prefix (its workers' leases) and limit on
    failed logins, a task queue of its own (`live_server.worker()` runs its tasks)."""
    assert not settings.DEBUG
    server = LiveServer(
        {
            "DATABASE_URL": served_database_url(),
            "DEBUG": "false",
            "SMALLVILLE_STATIC_ROOT": str(collected_static),
            "SMALLVILLE_CACHE_PREFIX": str(settings.CACHES["default"]["KEY_PREFIX"]),
            "SMALLVILLE_QUEUE": f"smallville-tests-browser-{uuid.uuid4().hex[:8]}",
            "SMALLVILLE_THROTTLE_AUTH_FAILURES": settings.SMALLVILLE_THROTTLE_AUTH_FAILURES,
        }
    )
    server.env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)  # the browser's, not the server's
    try:
        server.start()
        yield server
    finally:
        server.stop()


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
