"""/metrics on the production server and its worker, scraped by a real Prometheus: a run
started over REST is read back through PromQL as the steps it committed and the model
calls, tokens and call times the ledger holds, with its live worker; access needs the
token (or an allowed address); labels never carry a simulation's or a resident's id."""

from __future__ import annotations

import http.client
import json
import os
import re
import secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db.models import Sum

from integration.services import api_token_create
from llm.models import ModelCall
from observability import metrics
from tests.factories import N3
from tests.production_server import ProductionServer, served_with_worker
from tests.runtime.workers import wait_for

from .prometheus import Prometheus

TOKEN = secrets.token_hex(16)
# Loopback is not allowed: the test's requests and Prometheus's need the token.
ACCESS = {"SMALLVILLE_METRICS_TOKEN": TOKEN, "SMALLVILLE_METRICS_ALLOW": "192.0.2.0/24"}
STEPS = 3


@pytest.fixture(scope="module")
def served(django_db_setup: None, django_db_blocker: Any) -> Iterator[ProductionServer]:
    with django_db_blocker.unblock(), served_with_worker(ACCESS) as (server, _):
        yield server


def scrape(server: ProductionServer, token: str | None) -> tuple[int, str]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        conn.request("GET", "/metrics", headers=headers)
        answer = conn.getresponse()
        return answer.status, answer.read().decode()
    finally:
        conn.close()


def test_metrics_need_the_token_from_an_address_not_allowed(served: ProductionServer) -> None:
    assert scrape(served, None)[0] == 403
    assert scrape(served, "not-the-token")[0] == 403
    status, text = scrape(served, TOKEN)
    assert status == 200
    assert "# TYPE smallville_workers_live gauge" in text
    assert 'smallville_queue_depth{queue="ticks"}' in text
    assert TOKEN not in text


@pytest.mark.django_db(transaction=True)
def test_prometheus_reads_a_runs_steps_calls_and_tokens_back(
    served: ProductionServer, user: User
) -> None:
    token = api_token_create(user=user, name="lab").key

    def call(method: str, path: str, body: Any = None) -> Any:
        status, _, raw = served.request(method, path, body, token=token)
        assert status < 300, raw
        return json.loads(raw)

    simulation = call("POST", "/api/simulations/", {"base": N3, "config": {"cognition": "paper"}})
    call("POST", f"/api/simulations/{simulation['id']}/run/", {"steps": STEPS})
    progress = f"/api/simulations/{simulation['id']}/progress/"
    wait_for(lambda: call("GET", progress)["status"] == "idle", 300, "the run")
    assert call("GET", progress)["step"] == STEPS
    ledger = ModelCall.objects.all()
    calls = ledger.count()
    tokens = ledger.aggregate(p=Sum("prompt_tokens"), c=Sum("completion_tokens"))
    assert calls > 0

    with Prometheus(f"127.0.0.1:{served.port}", TOKEN) as prometheus:
        wait_for(lambda: prometheus.target_health() == "up", 30, "a scrape")
        wait_for(
            lambda: prometheus.value("sum(smallville_steps_committed_total)") == STEPS,
            30,
            "the steps through PromQL",
        )
        made = 'sum(smallville_model_calls_total{outcome!="shared"})'
        assert prometheus.value(made) == calls
        assert prometheus.value("sum(smallville_model_call_seconds_count)") == calls
        assert prometheus.value('sum(smallville_model_tokens_total{direction="input"})') == (
            tokens["p"] or None
        )
        assert prometheus.value('sum(smallville_model_tokens_total{direction="output"})') == (
            tokens["c"] or None
        )
        assert prometheus.value('sum(smallville_model_calls_total{backend="offline"})') == calls
        assert prometheus.value("smallville_workers_live") == 1
        assert prometheus.value("sum(smallville_model_calls_in_flight)") == 0
        assert prometheus.value('smallville_queue_depth{queue="ticks"}') == 0


def test_labels_are_bounded_never_an_id(served: ProductionServer) -> None:
    text = scrape(served, TOKEN)[1]
    labels = set(re.findall(r"[{,]([a-z_]+)=\"", text))
    assert labels, text[:500]
    assert labels <= {"engine", "task", "backend", "model", "outcome", "direction", "queue", "le"}


def test_a_deployments_start_removes_the_counts_of_processes_gone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        text=True,
        capture_output=True,
        check=True,
    ).stdout.strip()
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    alive = os.getpid()
    names = [f"counter_{gone}.db", f"histogram_{gone}.db", f"counter_{alive}.db", "notes.txt"]
    for name in names:
        (tmp_path / name).write_bytes(b"")
    metrics.stale_files_remove()
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"counter_{alive}.db", "notes.txt"]
