"""Faults and bad input: no run stalls, no request gets a 500, nothing is charged twice.

(a) a bad config or start time is a field-level 400 and writes nothing; (b) creating and
forking are throttled; (c) with the broker (Redis) down or hung, run and resume claim the
run and answer 202 (queued), never a 500; (d) with Postgres or the cache down, a 503 with
a code and Retry-After; (e) hostile input (deep JSON, NUL, surrogates, forged cursors,
times at the calendar's ends, malformed filters, a name taken but for case) is a 400 or
404; (f) a retrieval reads only; (g) an unusable model answer is a 502, not a 500."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from kombu import pools as kombu_pools
from rest_framework.test import APIClient

from agents.models import Interview
from llm.models import ModelCall
from memories.models import Memory
from smallville_project.celery import app as _celery_app
from tests.api import N3, create, error_of, fields_of
from tests.model_server import ModelServer, ok
from world.models import Event, Simulation, Town

ISABELLA = "Isabella Rodriguez"


celery_app: Any = _celery_app  # its pools are reset below, past what its stubs show


def _rates(settings: Any, **rates: str) -> None:
    framework = dict(settings.REST_FRAMEWORK)
    framework["DEFAULT_THROTTLE_RATES"] = {**framework["DEFAULT_THROTTLE_RATES"], **rates}
    settings.REST_FRAMEWORK = framework


def _rows() -> tuple[int, ...]:
    return tuple(m.objects.count() for m in (Simulation, Event, Memory, ModelCall, Interview))


def _unused_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# --- (a) config and start time ---------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"config": {"cognition": "nonsense"}}, "config.cognition"),
        ({"config": {"reflection_threshold": "abc"}}, "config.reflection_threshold"),
        ({"config": {"reflection_threshold": 0}}, "config.reflection_threshold"),
        ({"config": {"retrieval_weights": {"relevance": True}}}, "config.retrieval_weights"),
        ({"config": {"retrieval_weights": {"recency": 1e308}}}, "config.retrieval_weights"),
        ({"config": {"mood": "sunny"}}, "config.mood"),
        ({"config": {"junk": "x" * 250_000}}, "config.junk"),  # 250 KB, under the body limit
        ({"config": {f"k{i}": i for i in range(15_000)}}, "config.k0"),
        ({"config": "nonsense"}, "config"),
        ({"start_time": "9999-06-01T00:00:00Z"}, "start_time"),  # SimTimeOutOfReach
        ({"start_time": "9999-12-31T23:00:00-05:00"}, "start_time"),  # past 9999 in UTC
        ({"start_time": "0001-01-01T00:00:00+05:00"}, "start_time"),  # before year 1 in UTC
        ({"start_time": "1850-01-01T00:00:00Z"}, "start_time"),
    ],
)
def test_a_bad_config_or_start_time_is_a_field_400_and_writes_nothing(
    api: APIClient, fields: dict[str, Any], field: str
) -> None:
    rows = _rows()
    response = api.post("/api/simulations/", {"base": N3, **fields}, format="json")
    assert response.status_code == 400, response.content[:300]
    named = fields_of(response)
    assert any((key or "").startswith(field) for key in named), named
    assert _rows() == rows


@pytest.mark.django_db
def test_a_body_of_junk_over_the_limit_is_413_and_writes_nothing(api: APIClient) -> None:
    rows = _rows()
    junk = json.dumps({"base": N3, "config": {"junk": "x" * 300_000}})
    response = api.post("/api/simulations/", junk, content_type="application/json")
    assert response.status_code == 413
    assert error_of(response)["code"] == "request_too_large"
    assert _rows() == rows


# --- (b) throttles on create and fork --------------------------------------------------------


@pytest.mark.django_db
def test_creating_and_forking_are_throttled_with_retry_after(api: APIClient, settings: Any) -> None:
    _rates(settings, create="2/minute", fork="1/minute")
    first = create(api)
    create(api)
    rows = _rows()
    third = api.post("/api/simulations/", {"base": N3}, format="json")
    assert third.status_code == 429
    assert error_of(third)["code"] == "throttled"
    assert int(third["Retry-After"]) > 0
    assert _rows() == rows

    fork = f"/api/simulations/{first['id']}/fork/"
    assert api.post(fork, {}, format="json").status_code == 201
    rows = _rows()
    again = api.post(fork, {}, format="json")
    assert again.status_code == 429 and int(again["Retry-After"]) > 0
    assert _rows() == rows


# --- (c) the broker down or hung: claimed and queued, never a 500 -----------------------------


@pytest.fixture
def broker_at(settings: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Point the Celery app's broker at a URL for the test (a real connection to it, not a
    mock of our queue), then back. Celery reads CELERY_BROKER_URL from the environment
    before its own setting (celery.app.utils.Settings.broker_url), so it is set too."""
    conf = celery_app.conf
    saved = (conf.broker_url, dict(conf.broker_transport_options), conf.task_publish_retry_policy)

    def reset() -> None:
        celery_app.pool.force_close_all()
        celery_app._pool = None
        celery_app.amqp._producer_pool = None
        # kombu keeps one pool per broker URL for the process: without this, the URL put
        # back gets the pool closed above, and a later test's publish or ping fails.
        kombu_pools.reset()

    def point(url: str, timeout: float = 5.0) -> None:
        reset()
        monkeypatch.setenv("CELERY_BROKER_URL", url)
        conf.broker_url = url
        conf.broker_transport_options = {
            **saved[1],
            "socket_timeout": timeout,
            "socket_connect_timeout": timeout,
        }
        conf.task_publish_retry_policy = {"max_retries": 1, "interval_start": 0}

    yield point
    reset()
    conf.broker_url, conf.broker_transport_options, conf.task_publish_retry_policy = saved


def _assert_queued(response: Any) -> None:
    assert response.status_code == 202, response.content
    body = response.json()
    assert body["status"] == "running"
    assert "broker is back" in body["waiting_for"], body


@pytest.mark.django_db(transaction=True)
def test_with_the_broker_down_run_and_resume_are_queued_not_500(
    api: APIClient, broker_at: Any
) -> None:
    simulation = create(api)
    base = f"/api/simulations/{simulation['id']}"
    broker_at(f"redis://127.0.0.1:{_unused_port()}/0")  # nothing listens: refused

    _assert_queued(api.post(f"{base}/run/", {"steps": 5}, format="json"))
    stored = Simulation.objects.get(pk=simulation["id"])
    assert (stored.status, stored.target_step) == ("running", 5)  # claimed, once
    again = api.post(f"{base}/run/", {"steps": 5}, format="json")
    assert again.status_code == 409  # a client's retry sees the run it already has

    assert api.post(f"{base}/pause/", format="json").status_code == 200
    _assert_queued(api.post(f"{base}/resume/", format="json"))
    assert Simulation.objects.get(pk=simulation["id"]).status == "running"


@pytest.fixture
def hung_redis() -> Iterator[str]:
    """A server that accepts connections and never answers, as a hung Redis."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"redis://127.0.0.1:{server.getsockname()[1]}/0"
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    server.close()


@pytest.mark.django_db(transaction=True)
def test_with_the_broker_hung_run_answers_within_its_timeout(
    api: APIClient, broker_at: Any, hung_redis: str
) -> None:
    simulation = create(api)
    broker_at(hung_redis, timeout=0.5)
    started = time.monotonic()
    response = api.post(f"/api/simulations/{simulation['id']}/run/", {"steps": 2}, format="json")
    _assert_queued(response)
    assert time.monotonic() - started < 10  # bounded by the publish timeout, not by Redis
    assert Simulation.objects.get(pk=simulation["id"]).status == "running"


# --- (d) Postgres or the cache down: 503 with a code and Retry-After -------------------------


@pytest.fixture
def database_down() -> Iterator[None]:
    """The default connection pointed at a socket directory where no server listens, so
    the next query's connect raises a real django.db.OperationalError (psycopg's own)."""
    settings_dict = connection.settings_dict
    saved = (settings_dict["HOST"], settings_dict["PORT"])
    connection.close()
    settings_dict["HOST"], settings_dict["PORT"] = "/nonexistent-smallville-socket", "5432"
    try:
        yield
    finally:
        connection.close()
        settings_dict["HOST"], settings_dict["PORT"] = saved


def _assert_unavailable(response: Any, code: str) -> None:
    assert response.status_code == 503, response.content
    assert int(response["Retry-After"]) > 0
    assert error_of(response)["code"] == code


@pytest.mark.django_db(transaction=True)
def test_with_postgres_down_the_api_and_the_admin_answer_503(
    api: APIClient, staff: Client, request: Any
) -> None:
    api.get("/api/simulations/")  # the clients' user and token exist before it goes down
    request.getfixturevalue("database_down")
    _assert_unavailable(api.get("/api/simulations/"), "database_unavailable")
    _assert_unavailable(
        api.post("/api/simulations/", {"base": N3}, format="json"), "database_unavailable"
    )
    # Outside DRF: the admin (a plain Django view), through the middleware.
    admin = staff.get("/admin/world/simulation/")
    assert admin.status_code == 503 and int(admin["Retry-After"]) > 0
    assert b"database" in admin.content


@pytest.mark.django_db
def test_with_the_cache_down_throttled_endpoints_answer_503(api: APIClient, settings: Any) -> None:
    simulation = create(api)
    default = {**settings.CACHES["default"], "LOCATION": f"redis://127.0.0.1:{_unused_port()}/1"}
    settings.CACHES = {**settings.CACHES, "default": default}
    rows = _rows()
    url = f"/api/simulations/{simulation['id']}"
    _assert_unavailable(
        api.post("/api/simulations/", {"base": N3}, format="json"), "cache_unavailable"
    )
    _assert_unavailable(api.post(f"{url}/run/", {"steps": 1}, format="json"), "cache_unavailable")
    body = {"persona": "a reporter", "question": "How are you?"}
    interview = api.post(f"{url}/residents/{ISABELLA}/interview/", body, format="json")
    _assert_unavailable(interview, "cache_unavailable")
    assert _rows() == rows
    assert api.get(f"{url}/").status_code == 200  # reads are not throttled: still served


@pytest.mark.django_db
def test_with_the_cache_hung_throttled_requests_fail_fast_after_the_first(
    api: APIClient, settings: Any, hung_redis: str
) -> None:
    """Only the request that finds the cache hung waits for its timeout; the ones after it
    are answered at once (the cache's breaker), not after a timeout each."""
    simulation = create(api)
    options = {"socket_timeout": 3.0, "socket_connect_timeout": 3.0}
    hung = {**settings.CACHES["default"], "LOCATION": hung_redis.replace("/0", "/1")}
    settings.CACHES = {**settings.CACHES, "default": {**hung, "OPTIONS": options}}
    url = f"/api/simulations/{simulation['id']}/residents/{ISABELLA}/whisper/"
    _assert_unavailable(api.post(url, {"statement": "x"}, format="json"), "cache_unavailable")
    for _ in range(6):
        started = time.monotonic()
        response = api.post(url, {"statement": "x"}, format="json")
        _assert_unavailable(response, "cache_unavailable")
        assert time.monotonic() - started < 1.5  # the cache's timeout is 3 s


# --- (e) hostile input -------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    "raw",
    [
        '{"base": ' + "[" * 1000 + "]" * 1000 + "}",  # 1,000 deep: the parser's stack
        '{"config": ' + '{"a": ' * 600 + "1" + "}" * 600 + "}",
        '{"base": "base_the_ville_isabella_maria_klaus", "name": "a\\u0000b"}',  # NUL
        '{"base": "base_the_ville_isabella_maria_klaus", "name": "\\ud800"}',  # lone surrogate
        '{"base": "base_the_ville_isabella_maria_klaus", "config": {"\\u0000": 1}}',
        '{"base": "base_the_ville_isabella_maria_klaus", "seed": 1' + "0" * 400 + "}",
        '{"base": "base_the_ville_isabella_maria_klaus", "seed": 1e999}',
        '{"base": "base_the_ville_isabella_maria_klaus", "seed": NaN}',
        b'{"base": "\xff\xfe"}',  # not UTF-8
    ],
)
def test_hostile_json_is_a_400_with_a_message(api: APIClient, raw: str | bytes) -> None:
    rows = _rows()
    response = api.post("/api/simulations/", raw, content_type="application/json")
    assert response.status_code == 400, response.content[:300]
    assert error_of(response)["code"] == "parse_error"
    assert _rows() == rows


@pytest.mark.django_db
def test_nul_in_the_query_string_or_path_is_a_400_not_a_500(api: APIClient) -> None:
    simulation = create(api)
    base = f"/api/simulations/{simulation['id']}"
    for url in (
        f"{base}/residents/?search=a%00b",
        f"{base}/events/?kind=%00",
        f"{base}/residents/Isabella%00Rodriguez/",
        f"{base}/residents/Isabella%00Rodriguez/memories/",
    ):
        response = api.get(url)
        assert response.status_code == 400, (url, response.content)
        error = error_of(response)
        assert error["code"] == "invalid_characters" and "NUL" in error["detail"]
    whisper = api.post(
        f"{base}/residents/Isabella%00Rodriguez/whisper/", {"statement": "x"}, format="json"
    )
    assert whisper.status_code == 400


@pytest.mark.django_db
@pytest.mark.parametrize(
    "until",
    [
        "9999-12-31T23:59:59Z",  # beyond the 1,000,000-step cap: RunRefused
        "9999-12-31T23:00:00-05:00",  # beyond the calendar in UTC
        "2100-01-01T00:00:00Z",  # far past the cap
        "10000-01-01T00:00:00Z",
    ],
)
def test_a_run_until_beyond_the_cap_or_the_calendar_is_400(api: APIClient, until: str) -> None:
    simulation = create(api)
    response = api.post(
        f"/api/simulations/{simulation['id']}/run/", {"until": until}, format="json"
    )
    assert response.status_code == 400, response.content
    assert error_of(response)["detail"]
    assert Simulation.objects.get(pk=simulation["id"]).status == "idle"


def _boolean_filters(api: APIClient) -> list[tuple[str, str]]:
    schema = api.get("/api/schema/?format=json").json()
    return [
        (path, parameter["name"])
        for path, item in schema["paths"].items()
        for parameter in item.get("get", {}).get("parameters", [])
        if parameter["in"] == "query" and parameter["schema"].get("type") == "boolean"
    ]


def _filled(path: str, *, simulation: int, town: int) -> str:
    """`path` with the Ville (looked up, not assumed to be row 1) as its town."""
    own = town if path.startswith("/api/towns/") else 1
    return path.format(simulation_pk=simulation, resident=ISABELLA, town_pk=town, id=own)


@pytest.mark.django_db
def test_every_boolean_and_number_filter_rejects_malformed_values(
    api: APIClient, ville: Town
) -> None:
    simulation = create(api)
    booleans = _boolean_filters(api)
    assert ("/api/simulations/{simulation_pk}/model-calls/", "has_error") in booleans
    for path, name in booleans:
        url = _filled(path, simulation=simulation["id"], town=ville.pk)
        for value in ("maybe", "1", "yes"):
            response = api.get(url, {name: value})
            assert response.status_code == 400, (url, name, value, response.content)
            assert name in fields_of(response)
    schema = api.get("/api/schema/?format=json").json()
    numbers = [
        (path, parameter["name"])
        for path, item in schema["paths"].items()
        for parameter in item.get("get", {}).get("parameters", [])
        if parameter["in"] == "query" and parameter["schema"].get("type") == "integer"
    ]
    assert numbers
    for path, name in numbers:
        url = _filled(path, simulation=simulation["id"], town=ville.pk)
        for value in ("x", "1.5"):
            response = api.get(url, {name: value})
            assert response.status_code in (400, 404), (url, name, value, response.content)


@pytest.mark.django_db
def test_a_newcomer_named_as_a_resident_but_for_case_is_400(api: APIClient) -> None:
    simulation = create(api)
    url = f"/api/simulations/{simulation['id']}/residents/"
    rows = _rows()
    for name in ("isabella rodriguez", "ISABELLA RODRIGUEZ", "Isabella Rodriguez"):
        body = {"name": name, "address": "the Ville:Hobbs Cafe:cafe"}
        response = api.post(url, body, format="json")
        assert response.status_code == 400, response.content
        assert "already lives" in error_of(response)["detail"]
    assert _rows() == rows


# --- (f) reads do not write ---------------------------------------------------------------


@pytest.mark.django_db
def test_a_retrieval_writes_nothing_by_default(api: APIClient) -> None:
    simulation = create(api)
    url = f"/api/simulations/{simulation['id']}/residents/{ISABELLA}/retrieve/"
    accessed = list(Memory.objects.order_by("pk").values_list("last_accessed", flat=True))
    rows = _rows()
    for _ in range(3):
        response = api.post(url, {"query": "the party", "k": 5}, format="json")
        assert response.status_code == 200 and response.json()["results"]
    assert _rows() == rows
    assert list(Memory.objects.order_by("pk").values_list("last_accessed", flat=True)) == accessed
    schema = api.get("/api/schema/?format=json").json()
    touch = schema["components"]["schemas"]["RetrievalRequestRequest"]["properties"]["touch"]
    assert touch["default"] is False and "default false" in touch["description"]


# --- (g) model outputs ------------------------------------------------------------------------


@pytest.mark.django_db
def test_an_interview_answer_too_long_is_a_502_not_a_500(
    api: APIClient, settings: Any, model_server: ModelServer
) -> None:
    simulation = create(api)  # seeded by the offline model
    settings.SMALLVILLE_LLM_BACKEND = "openai"
    settings.SMALLVILLE_LLM_BASE_URL = model_server.base_url
    settings.SMALLVILLE_LLM_API_KEY = "test-key"
    settings.SMALLVILLE_LLM_MODEL = "fake-model"
    settings.SMALLVILLE_LLM_MAX_REASKS = 1
    settings.SMALLVILLE_LLM_BACKOFF_BASE = 0.01
    settings.SMALLVILLE_LLM_FALLBACK = "fail"  # the default takes the fail-safe (next test)
    model_server.default = ok({"answer": "la " * 2000})  # over the answer's 2,000 characters
    interviews = Interview.objects.count()
    response = api.post(
        f"/api/simulations/{simulation['id']}/residents/{ISABELLA}/interview/",
        {"persona": "a reporter", "question": "Tell me everything."},
        format="json",
    )
    assert response.status_code == 502, response.content
    error = error_of(response)
    assert error["code"] == "model_output_invalid" and error["detail"]
    assert Interview.objects.count() == interviews


@pytest.mark.django_db
def test_an_interview_answer_still_too_long_takes_the_fail_safe_answer(
    api: APIClient, settings: Any, model_server: ModelServer
) -> None:
    simulation = create(api)
    settings.SMALLVILLE_LLM_BACKEND = "openai"
    settings.SMALLVILLE_LLM_BASE_URL = model_server.base_url
    settings.SMALLVILLE_LLM_API_KEY = "test-key"
    settings.SMALLVILLE_LLM_MODEL = "fake-model"
    settings.SMALLVILLE_LLM_MAX_REASKS = 1
    model_server.default = ok({"answer": "la " * 2000})
    response = api.post(
        f"/api/simulations/{simulation['id']}/residents/{ISABELLA}/interview/",
        {"persona": "a reporter", "question": "Tell me everything."},
        format="json",
    )
    assert response.status_code == 201, response.content
    call = ModelCall.objects.filter(task="interview").latest("id")
    assert call.fallback and call.attempts == 2 and call.output is not None
    assert response.json()["answer"] == call.output["answer"]  # the offline policy's answer


def test_every_model_failure_maps_to_a_502_or_503() -> None:
    from api.errors import api_error
    from llm.errors import (
        ModelCallFailed,
        ModelOutputInvalid,
        ModelRequestRejected,
        ModelUnavailable,
    )

    for error, status in (
        (ModelOutputInvalid, 502),
        (ModelUnavailable, 503),
        (ModelRequestRejected, 503),
        (ModelCallFailed, 503),
    ):
        mapped = api_error(error("the model failed", task="interview", attempts=3))
        assert mapped is not None and mapped.status_code == status
        assert "the model failed" in str(mapped.detail)


def test_model_errors_are_documented() -> None:
    schema = APIClient().get("/api/schema/?format=json").json()
    interview = schema["paths"]["/api/simulations/{simulation_pk}/residents/{resident}/interview/"]
    assert {"502", "503", "429"} <= set(interview["post"]["responses"])


def test_a_backing_service_down_where_no_middleware_saw_it_is_503_not_500() -> None:
    from django.db import OperationalError
    from django.test import RequestFactory
    from redis.exceptions import ConnectionError as RedisConnectionError

    from api.errors import handler500

    for error, code in (
        (OperationalError("connection refused"), "database_unavailable"),
        (RedisConnectionError("connection refused"), "cache_unavailable"),
    ):
        try:
            raise error
        except Exception:  # Django calls handler500 while handling the exception
            api = handler500(RequestFactory().get("/api/simulations/"))
            admin = handler500(RequestFactory().get("/admin/"))
        assert api.status_code == 503 and int(api["Retry-After"]) > 0
        assert api["Content-Type"] == "application/problem+json"
        assert json.loads(api.content)["code"] == code
        assert admin.status_code == 503 and int(admin["Retry-After"]) > 0
