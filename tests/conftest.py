"""Shared fixtures: users, API clients, and the Ville imported once per test database."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from rest_framework.test import APIClient

from kernel.pools import pools_connections_close
from runtime.dispatch import Work
from tests import database, parallel
from tests.factories import api_client_for
from tests.model_server import ModelServer
from world.models import Town
from world.towns import town_get_or_import


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_setupnodes(config: pytest.Config, specs: list[Any]) -> None:
    """In the controlling process of a parallel run: each worker's own Redis databases,
    in the environment it starts with (tests/parallel.py)."""
    from django.conf import settings

    environments = parallel.workers_environments(
        [spec.id for spec in specs],
        str(settings.CELERY_BROKER_URL),
        str(settings.CACHES["default"]["LOCATION"]),
    )
    for spec in specs:
        spec.env.update(environments[spec.id])


def pytest_configure(config: pytest.Config) -> None:
    if parallel.is_worker():
        parallel.worker_settings_check(os.environ)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """`--dist loadgroup`: tests sharing a module's, package's or directory's fixture run
    in one worker (tests/parallel.py)."""
    if config.getvalue("dist") == "loadgroup":
        return parallel.GroupScheduling(config, log)
    return None


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: Any, django_db_blocker: Any) -> Iterator[None]:
    with django_db_blocker.unblock():
        database.commits_unsynced()
        database.flush_keeps_content_addressed_rows()
        database.shipped_rows_keep()
    yield
    pools_connections_close()  # before the test database is dropped


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    database.shipped_rows_restore(item)


@pytest.fixture
def ville(db: None) -> Town:
    return town_get_or_import()


@pytest.fixture
def user(db: None) -> User:
    return User.objects.create_user(username="alice", password="alice-password-1")


@pytest.fixture
def other_user(db: None) -> User:
    return User.objects.create_user(username="bob", password="bob-password-1")


@pytest.fixture
def staff(db: None) -> Client:
    """A logged-in superuser, for the admin."""
    user = User.objects.create_superuser(username="staff", password="staff-password-1")
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def api(user: User) -> APIClient:
    return api_client_for(user)


@pytest.fixture
def other_api(other_user: User) -> APIClient:
    return api_client_for(other_user)


@pytest.fixture(scope="session", autouse=True)
def private_celery_queue() -> Iterator[None]:
    """Tasks a test sends go to a queue of this session's, deleted at the end, never to
    the queue a developer's `make serve` worker consumes."""
    import uuid

    from smallville_project.celery import app

    queue = f"smallville-tests-{uuid.uuid4().hex[:8]}"
    app.conf.task_default_queue = queue
    yield
    with app.connection_for_write() as conn:
        conn.default_channel.queue_delete(queue)  # type: ignore[attr-defined]


@pytest.fixture(scope="session", autouse=True)
def private_cache() -> Iterator[None]:
    """Throttle counts of this session live under a key prefix of their own in the shared
    Redis, so concurrent test runs (whose users have the same ids) do not count together."""
    import uuid

    from django.conf import settings
    from django.test.utils import override_settings

    default = {**settings.CACHES["default"], "KEY_PREFIX": f"tests-{uuid.uuid4().hex[:8]}"}
    # Every test client is 127.0.0.1: failed logins and wrong tokens of one test must not
    # throttle the next (the tests of that limit set their own, from addresses of theirs).
    with override_settings(
        CACHES={**settings.CACHES, "default": default},
        SMALLVILLE_THROTTLE_AUTH_FAILURES="1000000/minute",
    ):
        yield


@pytest.fixture(scope="session", autouse=True)
def quick_password_hashing() -> Iterator[None]:
    """Passwords made and checked in this process hash once (tests/passwords.py)."""
    from django.conf import settings
    from django.test.utils import override_settings

    hashers = ["tests.passwords.OneIterationPBKDF2PasswordHasher", *settings.PASSWORD_HASHERS]
    with override_settings(PASSWORD_HASHERS=hashers):
        yield


@pytest.fixture(autouse=True)
def breakers_closed() -> Iterator[None]:
    """What a test saw of the cache or database being down (kernel.breaker)
    is not the next test's: the breakers are closed after each."""
    from kernel.breaker import cache_breaker, database_breaker

    yield
    cache_breaker.succeeded()
    database_breaker.succeeded()


@pytest.fixture
def sent_work() -> Iterator[list[Work]]:
    """What the engine and reflection hand on, recorded in order instead of sent (this
    thread only): the broker replaced through `runtime.dispatch.broker_used`."""
    from runtime.dispatch import RecordingBroker, broker_used

    with broker_used(RecordingBroker()) as recorder:
        assert isinstance(recorder, RecordingBroker)
        yield recorder.sent


@pytest.fixture
def model_server() -> Iterator[ModelServer]:
    """The fake model server, scripted (tests/model_server.py): push its replies."""
    server = ModelServer()
    yield server
    server.close()
