"""The production server (gunicorn as `make serve` runs it, on the test database) under
what a probe found: simultaneous requests pass a throttle no more often than its rate,
across the server's processes and threads; a chunked request body is read, not dropped;
a town file may be larger than other bodies, sized or chunked."""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.api import N3, advance, create
from tests.production_server import ProductionServer, production_server, served_database_url
from tests.tiled import barn_map
from world.models import Simulation, Town


@pytest.fixture(scope="module")
def server(django_db_setup: None, django_db_blocker: Any) -> Iterator[ProductionServer]:
    env = {"DATABASE_URL": served_database_url(), "SMALLVILLE_THROTTLE_CREATE": "10/hour"}
    with django_db_blocker.unblock(), production_server(env) as running:
        yield running


@pytest.mark.django_db(transaction=True)
def test_twenty_simultaneous_creates_under_ten_an_hour_accept_exactly_ten(
    server: ProductionServer, user: User, ville: Town
) -> None:
    # The town is imported first: creates racing to import it fail on its unique name.
    # Ten an hour, not a minute: on a loaded machine the creates straggle over a minute,
    # and a sliding minute would rightly let later ones in.
    token = Token.objects.create(user=user).key
    start = threading.Barrier(20)
    body = {"base": N3, "config": {"cognition": "minimal"}}

    def create_one(_: int) -> int:
        start.wait()
        # A server process's first create rates the seed memories with the stand-in, which
        # first embeds its example statements (seconds each, on two busy cores).
        return server.request("POST", "/api/simulations/", body, token=token, timeout=240)[0]

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


@pytest.mark.django_db(transaction=True)
def test_a_town_file_may_be_larger_than_other_bodies(server: ProductionServer, user: User) -> None:
    token = Token.objects.get_or_create(user=user)[0].key
    town = barn_map(150)
    raw = json.dumps(town).encode()
    assert len(raw) > settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    status, _, body = server.request("POST", "/api/towns/", town, token=token)
    assert status == 201, body[:300]
    chunks = [raw[i : i + 65536] for i in range(0, len(raw), 65536)]
    chunks = [chunk.replace(b'"long_barn"', b'"long_barn_2"') for chunk in chunks]
    status, _, body = server.request("POST", "/api/towns/", token=token, chunks=chunks)
    assert status == 201, body[:300]
    assert set(Town.objects.filter(owner=user).values_list("name", flat=True)) == {
        "long_barn",
        "long_barn_2",
    }
    # Other routes keep their limit.
    status, headers, body = server.request(
        "POST", "/api/bases/", {"junk": "x" * len(raw)}, token=token
    )
    assert status == 413, body[:300]
    assert headers["content-type"] == "application/problem+json"
    # Sent in chunks, it is refused before Django runs (smallville_project.chunked): a
    # problem too.
    junk = json.dumps({"junk": "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1000)}).encode()
    chunked = [junk[i : i + 65536] for i in range(0, len(junk), 65536)]
    status, headers, body = server.request("POST", "/api/bases/", token=token, chunks=chunked)
    assert (status, headers["content-type"]) == (413, "application/problem+json"), body[:300]
    assert json.loads(body)["code"] == "request_too_large"
