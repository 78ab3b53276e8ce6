"""A property of every write endpoint: a hostile JSON body is a 4xx in the error format, with
a message, and writes nothing.

The endpoints come from the OpenAPI schema (every POST, PUT, PATCH and DELETE), so a new one
is covered the day it is added. Each starts from a valid body
(tests/runtime/controls/test_access.py) and hypothesis makes it hostile: nested past the
parser's depth limit, over the size limit,
NUL or an unpaired surrogate in a value or a key, numbers beyond 64 bits or beyond a float,
and date-times at the calendar's ends in the operation's date-time fields. Nothing may
change: the rows of simulations, events, residents, memories, model calls, interviews and
object states, and the simulation's own status and step.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.conf import settings as django_settings
from drf_spectacular.generators import SchemaGenerator  # the schema the API serves
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from agents.models import Interview, ObjectState
from llm.models import ModelCall
from memories.models import Memory
from tests.api import create, error_of
from world.models import Agent, Event, Simulation

from .test_access import BODIES

ISABELLA = "Isabella Rodriguez"
EXAMPLES = 12
WRITES = {"post", "put", "patch", "delete"}
RAW = "\x01raw\x01"  # a placeholder for JSON text json.dumps cannot write (1e999, deep nests)

_SCHEMA: dict[str, Any] = SchemaGenerator().get_schema(  # type: ignore[no-untyped-call]
    request=None, public=True
)
OPERATIONS = sorted(
    (method, path) for path, item in _SCHEMA["paths"].items() for method in item if method in WRITES
)


def _date_time_fields(method: str, path: str) -> list[str]:
    body = _SCHEMA["paths"][path][method].get("requestBody", {}).get("content", {})
    ref = body.get("application/json", {}).get("schema", {}).get("$ref", "")
    component = _SCHEMA["components"]["schemas"].get(ref.rsplit("/", 1)[-1], {})
    return [
        name
        for name, field in component.get("properties", {}).items()
        if field.get("format") == "date-time"
    ]


def _valid_body(method: str, path: str) -> dict[str, Any]:
    for (verb, suffix), body in BODIES.items():
        if (
            verb == method
            and path.endswith(suffix)
            and (suffix != "/api/simulations/" or path == suffix)
        ):
            return dict(body)
    return {}


# --- what makes a body hostile -------------------------------------------------------------

_unsafe_char = st.sampled_from(["\x00", "\ud800", "\udfff", "\udbff"])
unsafe_text = st.builds(
    lambda before, bad, after: before + bad + after,
    st.text(max_size=20),
    _unsafe_char,
    st.text(max_size=20),
)
huge_number = st.one_of(
    st.integers(min_value=19, max_value=1000).map(lambda digits: 10**digits),
    st.integers(min_value=19, max_value=1000).map(lambda digits: -(10**digits)),
    st.sampled_from(["1e999", "-1e999", "1" + "0" * 400 + ".5"]).map(lambda text: (RAW, text)),
)
deep = st.builds(
    lambda depth, kind: (
        RAW,
        ("[" * depth + "]" * depth) if kind else ('{"a":' * depth + "1" + "}" * depth),
    ),
    st.integers(min_value=33, max_value=3000),
    st.booleans(),
)
calendar_end = st.sampled_from(
    [
        "0001-01-01T00:00:00Z",
        "0001-01-01T00:00:00+23:59",  # before year 1 in UTC
        "9999-12-31T23:59:59Z",
        "9999-12-31T23:59:59-23:59",  # after year 9999 in UTC
        "9999-12-31T23:59:59.999999-05:00",
        "10000-01-01T00:00:00Z",
        "-0001-01-01T00:00:00Z",
    ]
)


def _encode(body: Any) -> str:
    """JSON text of `body`, with each (RAW, text) written as that text."""
    raws: list[str] = []

    def mark(value: Any) -> Any:
        if isinstance(value, tuple) and value and value[0] == RAW:
            raws.append(value[1])
            return f"{RAW}{len(raws) - 1}"
        if isinstance(value, dict):
            return {key: mark(item) for key, item in value.items()}
        if isinstance(value, list):
            return [mark(item) for item in value]
        return value

    text = json.dumps(mark(body))  # ensure_ascii: a surrogate is written as \ud800
    marker = re.escape(json.dumps(RAW)[1:-1])
    return re.sub(f'"{marker}(\\d+)"', lambda m: raws[int(m.group(1))], text)


@st.composite
def hostile_bodies(draw: st.DrawFn, method: str, path: str) -> tuple[str, str]:
    """(what was done, the JSON text) for one hostile body of the operation."""
    body = _valid_body(method, path)
    keys = [*sorted(body), "extra"]
    dates = _date_time_fields(method, path)
    kinds = ["deep", "unsafe value", "unsafe key", "huge number", "too large"]
    kind = draw(st.sampled_from(kinds + (["calendar end"] if dates else [])))
    if kind == "too large":
        size = draw(st.integers(django_settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1, 2**20))
        return kind, json.dumps({**body, draw(st.sampled_from(keys)): "x" * size})
    if kind == "unsafe key":
        body[draw(unsafe_text)] = draw(st.sampled_from([1, "x", True, None]))
    elif kind == "calendar end":
        body[draw(st.sampled_from(dates))] = draw(calendar_end)
        body.pop("steps", None)  # `run`: until alone, as a client would send it
    else:
        value = {"deep": deep, "unsafe value": unsafe_text, "huge number": huge_number}[kind]
        hostile = draw(value)
        body[draw(st.sampled_from(keys))] = draw(
            st.sampled_from([hostile, [hostile], {"nested": hostile}])
        )
    return kind, _encode(body)


# --- the property --------------------------------------------------------------------------


def _state(simulation_id: int) -> tuple[Any, ...]:
    counts = tuple(
        model.objects.count()
        for model in (Simulation, Event, Agent, Memory, ModelCall, Interview, ObjectState)
    )
    row = Simulation.objects.values_list("status", "step", "target_step").get(pk=simulation_id)
    return counts + tuple(row)


def _url(path: str, simulation_id: int) -> str:
    return re.sub(
        r"{(\w+)}",
        lambda m: ISABELLA if m.group(1) == "resident" else str(simulation_id),
        path,
    )


@pytest.fixture
def unthrottled(settings: Any) -> None:
    framework = dict(settings.REST_FRAMEWORK)
    framework["DEFAULT_THROTTLE_RATES"] = {
        scope: "100000/minute" for scope in framework["DEFAULT_THROTTLE_RATES"]
    }
    settings.REST_FRAMEWORK = framework


def test_every_write_endpoint_is_covered() -> None:
    assert len(OPERATIONS) >= 14
    assert ("post", "/api/simulations/") in OPERATIONS
    assert ("put", "/api/simulations/{simulation_pk}/objects/") in OPERATIONS


@pytest.mark.django_db
@pytest.mark.parametrize(("method", "path"), OPERATIONS)
def test_a_hostile_body_is_a_4xx_with_a_message_and_writes_nothing(
    api: APIClient, unthrottled: None, method: str, path: str
) -> None:
    simulation_id = create(api)["id"]
    url = _url(path, simulation_id)
    send = getattr(api, method)

    @hypothesis_settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(hostile=hostile_bodies(method, path))
    def check(hostile: tuple[str, str]) -> None:
        kind, text = hostile
        before = _state(simulation_id)
        response = send(url, text, content_type="application/json")
        where = f"{method.upper()} {path} ({kind}): {text[:200]!r}"
        assert 400 <= response.status_code < 500, (
            where,
            response.status_code,
            response.content[:300],
        )
        problem = error_of(response)
        assert problem["code"], where
        if response.status_code == 400:  # the body's fault: where in it, or the whole of it
            assert problem["errors"], where
        assert _state(simulation_id) == before, where

    check()
