"""Health and readiness on the production server (gunicorn as `make serve` runs it, with
its worker), as a load balancer and `make serve` see them."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from observability import ready_wait
from runtime.workerproc import ROOT
from tests.chaos.processes import free_port
from tests.production_server import ProductionServer, served_with_worker
from tests.runtime.workers import wait_for


@pytest.fixture(scope="module")
def served(django_db_setup: None, django_db_blocker: Any) -> Iterator[ProductionServer]:
    with django_db_blocker.unblock(), served_with_worker() as (server, _):
        yield server


def wait_ready(url: str, seconds: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "observability.ready_wait", url, seconds]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_the_server_is_healthy_and_ready_with_its_worker_without_a_login(
    served: ProductionServer,
) -> None:
    status, headers, body = served.request("GET", "/healthz")
    assert (status, json.loads(body)) == (200, {"status": "ok"})
    assert {k.lower(): v for k, v in headers.items()}["content-type"] == "application/json"
    wait_for(lambda: served.request("GET", "/readyz")[0] == 200, 30, "ready")
    ready = json.loads(served.request("GET", "/readyz")[2])
    assert ready["status"] == "ready"
    assert {name: c["status"] for name, c in ready["checks"].items()} == dict.fromkeys(
        ("database", "cache", "broker", "workers"), "up"
    )


def test_make_serve_waits_until_ready_and_says_where(served: ProductionServer) -> None:
    done = wait_ready(served.url, "30")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith(f"ready: {served.url}/")


def test_waiting_for_a_server_that_is_not_there_fails_naming_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert ready_wait.main([f"http://127.0.0.1:{free_port()}", "1"]) == 1
    assert "not ready after 1 s: down: the server" in capsys.readouterr().out
