"""Every write endpoint of the API (each POST, PUT and PATCH of the OpenAPI schema) answers
bad input with a problem listing every field at fault: a malformed body, and a body with
two fields of the wrong type (or one and a key that is no field)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from rest_framework.test import APIClient

from llm.models import ModelProfile
from tests.api import counts, create, error_of, fields_of
from tests.experiments.town import base_made, definition
from world.models import Location, LocationKind

WRITES = ("post", "put", "patch")
NEWCOMER = "Ottilie Brask"
# A value of the wrong JSON type for a field of each schema type.
WRONG: dict[str, Any] = {
    "string": {"not": "text"},
    "integer": "eleven",
    "number": "eleven",
    "boolean": "perhaps",
    "array": 17,
    "object": 17,
}


def _operations(api: APIClient) -> list[tuple[str, str, dict[str, Any], dict[str, Any]]]:
    """(method, path, operation, the request body's schema or {}) of every write of the
    schema the API serves."""
    schema = api.get("/api/schema/?format=json").json()
    components = schema["components"]["schemas"]
    found = []
    for path, item in schema["paths"].items():
        for method in WRITES:
            if method not in item:
                continue
            operation = item[method]
            content = operation.get("requestBody", {}).get("content", {})
            ref = content.get("application/json", {}).get("schema", {}).get("$ref", "")
            body = components.get(ref.rsplit("/", 1)[-1], {}) if ref else {}
            found.append((method, path, operation, body))
    return found


def _ids(api: APIClient, user: Any) -> dict[str, str]:
    """A thing of the user's for each kind of path parameter."""
    simulation = create(api)
    arenas = Location.objects.filter(town_id=simulation["town"], kind=LocationKind.ARENA)
    place = arenas.order_by("pk").values_list("address", flat=True)
    newcomer = {"name": NEWCOMER, "address": place.first()}
    made = api.post(f"/api/simulations/{simulation['id']}/residents/", newcomer, format="json")
    assert made.status_code == 201, made.content
    base = base_made(api)
    experiment = api.post("/api/experiments/", definition(base), format="json")
    assert experiment.status_code == 201, experiment.content
    profile = ModelProfile.objects.create(
        owner=user, name="a server of the test's", base_url="http://127.0.0.1:9/v1", model="m"
    )
    hook = {"url": "http://127.0.0.1:9/hooks/in", "events": ["run.finished"]}
    webhook = api.post("/api/webhooks/", hook, format="json")
    assert webhook.status_code == 201, webhook.content
    return {
        "simulation_pk": str(simulation["id"]),
        "resident": NEWCOMER,
        "/api/bases/": str(base),
        "/api/experiments/": str(experiment.json()["id"]),
        "/api/profiles/": str(profile.pk),
        "/api/simulations/": str(simulation["id"]),
        "/api/webhooks/": str(webhook.json()["id"]),
    }


def _url(path: str, ids: dict[str, str]) -> str:
    def one(match: re.Match[str]) -> str:
        name = match.group(1)
        if name == "id":  # the collection's own: /api/<collection>/{id}/...
            return ids[path[: match.start()]]
        return ids[name]

    return re.sub(r"\{(\w+)\}", one, path)


def _two_bad(body: dict[str, Any]) -> tuple[dict[str, Any], set[str]]:
    """A body with two fields at fault: two of the wrong type, else one and a key that is no
    field, else two such keys."""
    fields = body.get("properties", {})
    writable = [name for name, spec in fields.items() if not spec.get("readOnly")]
    bad: dict[str, Any] = {}
    for name in writable[:2]:
        bad[name] = WRONG.get(fields[name].get("type", ""), [[{"no": "such value"}]])
    for extra in ("no_such_field", "nor_this_one")[: 2 - len(bad)]:
        bad[extra] = 1
    return bad, set(bad)


@pytest.mark.django_db
def test_every_write_endpoint_lists_every_field_at_fault(
    api: APIClient, user: Any, settings: Any
) -> None:
    settings.SMALLVILLE_WEBHOOKS_ALLOW_PRIVATE = True  # the test's hook is on this machine
    ids = _ids(api, user)
    operations = _operations(api)
    assert len(operations) >= 30  # the sweep sees the whole API
    for method, path, operation, body in operations:
        url = _url(path, ids)
        send = getattr(api, method)
        before = counts()
        where = f"{method.upper()} {path}"
        malformed = send(url, '{"name": "unfinished', content_type="application/json")
        if malformed.status_code >= 400:
            problem = error_of(malformed)
            if "requestBody" in operation:
                assert malformed.status_code == 400, (where, malformed.content)
                assert [e["field"] for e in problem["errors"]] == [None], (where, problem)
        if "requestBody" not in operation:
            continue
        bad, expected = _two_bad(body)
        response = send(url, bad, format="json")
        assert response.status_code == 400, (where, bad, response.content)
        named = {(field or "").split(".")[0].split("[")[0] for field in fields_of(response)}
        assert expected <= named, (where, bad, error_of(response))
        assert counts() == before, where
