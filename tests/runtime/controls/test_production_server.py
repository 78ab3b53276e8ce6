"""The production server (gunicorn as `make serve` runs it, on the test database) under
what a probe found: simultaneous requests pass a throttle no more often than its rate,
across the server's processes and threads; a chunked request body is read, not dropped."""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.api import N3, advance, create
from tests.production_server import ProductionServer, production_server, served_database_url
from world.models import Simulation, Town


@pytest.fixture(scope="module")
def server(django_db_setup: None, django_db_blocker: Any) -> Iterator[ProductionServer]:
    env = {"DATABASE_URL": served_database_url(), "SMALLVILLE_THROTTLE_CREATE": "10/minute"}
    with django_db_blocker.unblock(), production_server(env) as running:
        yield running


@pytest.mark.django_db(transaction=True)
def test_twenty_simultaneous_creates_under_ten_a_minute_accept_exactly_ten(
    server: ProductionServer, user: User, ville: Town
) -> None:
    # The town is imported first: creates racing to import it fail on its unique name.
    token = Token.objects.create(user=user).key
    start = threading.Barrier(20)
    body = {"base": N3, "config": {"cognition": "minimal"}}

    def create_one(_: int) -> int:
        start.wait()
        return server.request("POST", "/api/simulations/", body, token=token)[0]

    with ThreadPoolExecutor(20) as pool:
        statuses = Counter(pool.map(create_one, range(20)))
    assert statuses == {201: 10, 429: 10}
    assert Simulation.objects.filter(owner=user).count() == 10


@pytest.mark.django_db(transaction=True)
def test_a_chunked_fork_body_is_read(server: ProductionServer, api: APIClient, user: User) -> None:
    parent = create(api)
    advance(parent["id"], 8)
    token = Token.objects.get(user=user).key
    url = f"/api/simulations/{parent['id']}/fork/"
    status, _, body = server.request("POST", url, token=token, chunks=[b'{"st', b'ep": 5}'])
    assert status == 201, body
    child = json.loads(body)
    assert (child["forked_at_step"], child["step"]) == (5, 5)
    # A bad chunked body is refused as a sized one would be, and forks nothing.
    forks = Simulation.objects.filter(parent_id=parent["id"]).count()
    status, _, body = server.request("POST", url, token=token, chunks=[b'{"step": ', b"-1}"])
    assert status == 400, body
    assert Simulation.objects.filter(parent_id=parent["id"]).count() == forks
