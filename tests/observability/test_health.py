"""Health and readiness (observability/health.py) through their URLs, with no login: the
process is up; ready only with Postgres, the cache's and broker's Redis and a live worker,
each dependency named with its state when it is not."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from observability.health import TIMEOUT
from tests.chaos.processes import free_port
from tests.runtime.workers import celery_worker, wait_for


def ready(client: Client) -> tuple[int, dict[str, Any]]:
    answer = client.get("/readyz")
    return answer.status_code, answer.json()


def test_healthz_answers_without_a_login_or_any_dependency(settings: Any) -> None:
    settings.CELERY_BROKER_URL = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens
    answer = Client().get("/healthz")
    assert answer.status_code == 200 and answer.json() == {"status": "ok"}
    assert "no-cache" in answer["Cache-Control"]
    assert Client().post("/healthz").status_code == 405


@pytest.mark.django_db(transaction=True)
def test_ready_while_a_worker_lives_and_unavailable_naming_workers_once_it_stops() -> None:
    client = Client()
    with celery_worker(SMALLVILLE_LEASE_SECONDS="1.5"):
        wait_for(lambda: ready(client)[0] == 200, 30, "ready with a live worker")
        status, body = ready(client)
        assert body["status"] == "ready" and body["down"] == []
        assert set(body["checks"]) == {"database", "cache", "broker", "workers"}
        for check in body["checks"].values():
            assert check["status"] == "up" and 0 <= check["latency_ms"] < 1000
        assert body["checks"]["workers"]["detail"] == "1 live"
    # A clean stop takes the worker out at once.
    status, body = ready(client)
    assert status == 503 and body["status"] == "unavailable"
    assert body["down"] == ["workers"]
    assert "no live worker" in body["checks"]["workers"]["detail"]
    assert body["checks"]["database"]["status"] == "up"


@pytest.mark.django_db
def test_a_broker_that_does_not_answer_is_named_at_once(settings: Any) -> None:
    settings.CELERY_BROKER_URL = f"redis://127.0.0.1:{free_port()}/0"
    status, body = ready(Client())
    assert status == 503 and "broker" in body["down"]
    assert body["checks"]["broker"]["status"] == "down"
    assert "Connection" in body["checks"]["broker"]["detail"]
    assert body["checks"]["broker"]["latency_ms"] < TIMEOUT * 1000  # refused: not waited
    assert body["checks"]["database"]["status"] == "up"


@pytest.mark.django_db
def test_a_cache_that_does_not_answer_is_named(settings: Any) -> None:
    location = f"redis://127.0.0.1:{free_port()}/1"
    settings.CACHES = {
        "default": {**settings.CACHES["default"], "LOCATION": location, "OPTIONS": {}}
    }
    status, body = ready(Client())
    assert status == 503 and {"cache", "workers"} <= set(body["down"])
    assert body["checks"]["cache"]["status"] == "down"
    assert body["checks"]["broker"]["status"] == "up"


@pytest.mark.django_db
def test_a_probe_naming_the_machines_address_is_answered(settings: Any) -> None:
    """An orchestrator's probe sends the machine's address as its Host, which is not an
    allowed host: health and readiness answer it all the same; other pages refuse it."""
    probe = Client(HTTP_HOST="10.42.7.19:8000")
    assert probe.get("/healthz").status_code == 200
    assert probe.get("/readyz").status_code in (200, 503)
    assert probe.get("/readyz").json()["checks"]["database"]["status"] == "up"
    assert probe.get("/api/").status_code == 400
