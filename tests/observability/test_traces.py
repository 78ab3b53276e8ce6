"""OpenTelemetry traces (kernel/tracing.py) exported over OTLP/HTTP to a real receiver: a
run started over REST on the production server is one trace from the request through the
worker's tasks to each step, each resident's decision and each model call, with the
GenAI conventions' attributes; prompts only when allowed; nothing without an endpoint."""

from __future__ import annotations

import http.client
import json
import secrets
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User

from agents.tasks.importance import IMPORTANCE
from integration.services import api_token_create
from kernel.tracing import flush
from llm.port import llm_run
from observability.middleware import route_template
from tests.factories import N3
from tests.production_server import ProductionServer, served_with_worker
from tests.runtime.workers import wait_for

from .otlp import Receiver, Span

SERVER, CLIENT, CONSUMER = 2, 3, 5
INPUTS = {"agent_name": "Wren Hollis", "agent_identity": "", "memory": "the tide mill froze"}


@pytest.fixture(scope="module")
def receiver() -> Iterator[Receiver]:
    made = Receiver()
    yield made
    made.close()


@pytest.fixture(scope="module")
def served(
    django_db_setup: None, django_db_blocker: Any, receiver: Receiver
) -> Iterator[ProductionServer]:
    otel = {"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint, "OTEL_BSP_SCHEDULE_DELAY": "100"}
    with django_db_blocker.unblock(), served_with_worker(otel, otel) as (server, _):
        yield server


def request(
    server: ProductionServer, method: str, path: str, token: str, body: Any, headers: Any
) -> Any:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    try:
        sent = {"Authorization": f"Token {token}", "Content-Type": "application/json", **headers}
        conn.request(method, path, json.dumps(body) if body is not None else None, sent)
        answer = conn.getresponse()
        raw = answer.read()
        assert answer.status < 300, raw
        return json.loads(raw)
    finally:
        conn.close()


@pytest.mark.django_db(transaction=True)
def test_a_run_started_over_rest_is_one_trace_down_to_each_model_call(
    served: ProductionServer, receiver: Receiver, user: User
) -> None:
    token = api_token_create(user=user, name="lab").key
    simulation = request(
        served,
        "POST",
        "/api/simulations/",
        token,
        {"base": N3, "config": {"cognition": "paper"}},
        {},
    )
    trace_id, caller = secrets.token_hex(16), secrets.token_hex(8)
    carried = {"traceparent": f"00-{trace_id}-{caller}-01"}
    path = f"/api/simulations/{simulation['id']}/run/"
    request(served, "POST", path, token, {"steps": 2}, carried)
    progress = f"/api/simulations/{simulation['id']}/progress/"
    wait_for(
        lambda: request(served, "GET", progress, token, None, {})["status"] == "idle",
        120,
        "the run",
    )

    def of_run() -> list[Span]:
        return [s for s in receiver.got() if s.trace_id == trace_id]

    def complete() -> bool:
        spans = of_run()
        names = [s.name for s in spans]
        ids = {s.span_id for s in spans} | {caller}
        parents_in = all(s.parent_id in ids for s in spans)  # every process has exported
        return parents_in and names.count("step") >= 2 and any(n.startswith("chat ") for n in names)

    wait_for(complete, 30, "the run's spans")
    spans = of_run()
    by_id = {s.span_id: s for s in spans}
    [root] = [s for s in spans if s.parent_id == caller]
    assert root.kind == SERVER and root.name == "POST /api/simulations/{pk}/run/"
    assert root.attributes["http.route"] == "/api/simulations/{pk}/run/"
    assert root.attributes["http.response.status_code"] == 200
    assert all(s.parent_id in by_id for s in spans if s is not root)  # one tree

    def ancestors(span: Span) -> list[str]:
        names = []
        while span.parent_id in by_id:
            span = by_id[span.parent_id]
            names.append(span.name)
        return names

    tasks = [s for s in spans if s.kind == CONSUMER]
    assert tasks and {s.name for s in tasks} <= {"run agents.tick", "run agents.tick_commit"}
    assert all(s.attributes["smallville.simulation"] == simulation["id"] for s in tasks)
    steps = [s for s in spans if s.name == "step"]
    assert sorted(s.attributes["smallville.step"] for s in steps)[:2] == [0, 1]
    assert all(ancestors(s)[0].startswith("run agents.") for s in steps)
    decisions = [s for s in spans if s.name == "decide"]
    residents = {s.attributes["smallville.resident"] for s in decisions}
    assert residents == {"Isabella Rodriguez", "Klaus Mueller", "Maria Lopez"}
    assert all(ancestors(s)[0] == "step" for s in decisions)
    calls = [s for s in spans if s.kind == CLIENT]
    assert calls and all(s.name.startswith("chat ") for s in calls)
    for call in calls:
        attributes = call.attributes
        assert attributes["gen_ai.operation.name"] == "chat"
        assert attributes["gen_ai.provider.name"] == "offline"
        assert call.name == f"chat {attributes['gen_ai.request.model']}"
        assert attributes["gen_ai.usage.input_tokens"] >= 0
        assert attributes["gen_ai.usage.output_tokens"] >= 0
        assert attributes["smallville.simulation"] == simulation["id"]
        assert attributes["smallville.task"]
        assert "gen_ai.input.messages" not in attributes  # prompts are not sent by default
    in_decisions = [c for c in calls if "decide" in ancestors(c)]
    assert in_decisions and all(
        c.attributes["smallville.resident"] in residents for c in in_decisions
    )
    assert {s.service for s in spans} == {"smallville"}


@pytest.mark.django_db
def test_prompts_and_answers_go_only_where_allowed(
    receiver: Receiver, monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint)

    def call_span(allowed: bool) -> Span:
        settings.SMALLVILLE_TRACE_CONTENT = allowed
        before = len(receiver.got())
        llm_run(task=IMPORTANCE, inputs={**INPUTS, "memory": f"{INPUTS['memory']} {allowed}"})
        flush()
        wait_for(lambda: len(receiver.got()) > before, 10, "the span")
        [made] = receiver.got()[before:]
        return made

    shown = call_span(True)
    assert "the tide mill froze" in shown.attributes["gen_ai.input.messages"]
    assert shown.attributes["gen_ai.output.messages"]
    assert shown.attributes["smallville.task"] == "importance"
    hidden = call_span(False)
    assert "gen_ai.input.messages" not in hidden.attributes
    assert "gen_ai.output.messages" not in hidden.attributes


@pytest.mark.django_db
def test_without_an_endpoint_nothing_is_traced(receiver: Receiver) -> None:
    before = len(receiver.got())
    llm_run(task=IMPORTANCE, inputs={**INPUTS, "memory": "no collector here"})
    flush()
    assert len(receiver.got()) == before


def test_a_route_is_written_as_a_template() -> None:
    assert route_template("api/simulations/(?P<pk>[^/.]+)/run/$") == "/api/simulations/{pk}/run/"
    assert route_template("^api/towns/<int:pk>/paths/<slug:kind>/$") == (
        "/api/towns/{pk}/paths/{kind}/"
    )
    assert route_template("healthz") == "/healthz"
