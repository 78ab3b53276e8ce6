"""Webhooks through the production server started as `make serve` starts it (gunicorn, and a
real Celery worker delivering on the webhooks queue), all over REST: a receiver (a real
HTTP server) subscribed with POST /api/webhooks/ gets a signed delivery when a run
started with POST .../run/ finishes, answers 500 twice and receives the retry, and the
deliveries' log says so; with the operator's default settings, a private-range URL is
refused with a 400 naming `url`. (The same through the services: test_delivery.py.)"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User

from integration.services import api_token_create
from tests.factories import N3
from tests.integration.webhooks.receiver import (
    BACKOFF,
    WORKER,
    Receiver,
    assert_attempts_of_one_delivery,
)
from tests.production_server import (
    ProductionServer,
    production_server,
    served_database_url,
    served_with_worker,
)
from tests.runtime.workers import wait_for

# An operator whose receivers are on a private network (the test's is on 127.0.0.1).
PRIVATE_ALLOWED = {"SMALLVILLE_WEBHOOKS_ALLOW_PRIVATE": "1"}


@pytest.fixture(scope="module")
def served(django_db_setup: None, django_db_blocker: Any) -> Iterator[ProductionServer]:
    with django_db_blocker.unblock(), served_with_worker(PRIVATE_ALLOWED, WORKER) as (server, _):
        yield server


def _call(server: ProductionServer, method: str, path: str, token: str, body: Any = None) -> Any:
    """(status, the answer's JSON) of one request."""
    status, _, raw = server.request(method, path, body, token=token)
    return status, json.loads(raw) if raw else None


@pytest.mark.django_db(transaction=True)
def test_a_run_started_over_rest_is_delivered_signed_and_retried_after_two_500s(
    served: ProductionServer, user: User, receiver: Receiver
) -> None:
    token = api_token_create(user=user, name="lab").key
    receiver.answers = [500, 500]
    events = ["run.finished", "run.failed"]
    status, hook = _call(
        served, "POST", "/api/webhooks/", token, {"url": receiver.url, "events": events}
    )
    assert status == 201, hook
    config = {"cognition": "minimal"}
    status, simulation = _call(
        served, "POST", "/api/simulations/", token, {"base": N3, "config": config}
    )
    assert status == 201, simulation
    status, progress = _call(
        served, "POST", f"/api/simulations/{simulation['id']}/run/", token, {"steps": 2}
    )
    assert status == 200 and progress["status"] == "running", progress

    wait_for(lambda: len(receiver.got()) >= 3, 120, "the third attempt")

    def log() -> list[dict[str, Any]]:
        path = f"/api/webhooks/{hook['id']}/deliveries/"
        return list(_call(served, "GET", path, token)[1]["results"])

    wait_for(lambda: log()[0]["status"] == "succeeded", 30, "the delivery's log")
    [delivery] = log()
    assert (delivery["event"], delivery["attempts"], delivery["response_code"]) == (
        "run.finished",
        3,
        200,
    )
    got = receiver.got()
    assert [r.answered for r in got] == [500, 500, 200]
    assert_attempts_of_one_delivery(
        got,
        secret=hook["secret"],
        event="run.finished",
        delivery_id=delivery["id"],
        backoff=BACKOFF,
    )
    body = json.loads(got[0].body)
    assert (body["id"], body["event"]) == (delivery["id"], "run.finished")
    finished = body["data"]["simulation"]
    assert (finished["id"], finished["status"], finished["step"]) == (simulation["id"], "idle", 2)
    status, run = _call(served, "GET", f"/api/simulations/{simulation['id']}/progress/", token)
    assert (run["status"], run["step"]) == ("idle", 2)
    status, listed = _call(served, "GET", f"/api/webhooks/{hook['id']}/", token)
    assert (listed["active"], listed["failures"]) == (True, 0) and "secret" not in listed


@pytest.mark.django_db(transaction=True)
def test_a_private_range_url_is_refused_with_a_400_naming_url(user: User) -> None:
    token = api_token_create(user=user, name="lab").key
    defaults = {"DATABASE_URL": served_database_url(), "SMALLVILLE_WEBHOOKS_ALLOW_PRIVATE": "0"}
    with production_server(defaults) as server:
        for url in (
            "http://10.1.2.3/hook",
            "http://192.168.0.7:8080/hook",
            "http://169.254.169.254/latest",
        ):
            body = {"url": url, "events": ["run.finished"]}
            status, refused = _call(server, "POST", "/api/webhooks/", token, body)
            assert status == 400, refused
            assert refused["code"] == "invalid", refused
            assert [error["field"] for error in refused["errors"]] == ["url"], refused
            assert refused["detail"].startswith("url: ") and "private" in refused["detail"]
        assert _call(server, "GET", "/api/webhooks/", token)[1]["results"] == []
