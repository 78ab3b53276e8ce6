"""The production server and a Celery worker for the client's tests, started once for the
directory; a client authenticated by a token the user made (integration.services)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from smallville_client import Client

from tests.clients import token_of, url_of
from tests.production_server import ProductionServer, served_with_worker

# Each test creates a few simulations and forks: not the throttles under test here.
LIMITS = {"SMALLVILLE_THROTTLE_CREATE": "1000/minute", "SMALLVILLE_THROTTLE_FORK": "1000/minute"}


@pytest.fixture(scope="package")
def served(django_db_setup: None, django_db_blocker: Any) -> Iterator[ProductionServer]:
    with django_db_blocker.unblock(), served_with_worker(LIMITS) as (server, _):
        yield server


@pytest.fixture
def client(served: ProductionServer, user: User) -> Client:
    return Client(url_of(served), token_of(user))
