"""One error format for the whole API: every error is an RFC 9457 problem
(`application/problem+json`) whose `errors` list every field at fault, by one path syntax
(`residents[0].seed_memories[2]`, indexes 0-based), from every source: serializers, the
bases' and towns' own checks, the parsers, the middleware, throttles, Django's 404."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from tests.api import counts, create, error_of, fields_of
from tests.bases.test_bases_api import five
from world.models import Base, Location, LocationKind, Simulation, Town

# A town of the tests' own: a bad name, and a second row shorter than the first.
RAGGED_TOWN = {
    "format": "smallville-town/1",
    "name": "weir lock!",
    "world": "Weirholm",
    "legend": {"#": {"wall": True}, ".": {}, "m": {"sector": "mill", "arena": "floor"}},
    "rows": ["#####", "#mm.", "#...#", "#####"],
}


@pytest.mark.django_db
def test_a_base_with_two_bad_fields_lists_both_by_their_index_paths(api: APIClient) -> None:
    base = five()
    base["residents"][0]["seed_memories"] = ["Ines Vark oils chains on Sundays", "x" * 1001]
    base["residents"][3]["age"] = -4
    before = Base.objects.count()
    response = api.post("/api/bases/", base, format="json")
    assert response.status_code == 400, response.content
    assert set(fields_of(response)) == {"residents[0].seed_memories[1]", "residents[3].age"}
    problem = error_of(response)
    assert problem["title"] == "Bad Request" and problem["code"] == "invalid"
    assert "residents[3].age" in problem["detail"]
    assert Base.objects.count() == before


@pytest.mark.django_db
def test_a_newcomer_with_a_bad_memory_and_age_lists_both(api: APIClient) -> None:
    simulation = create(api)
    arenas = Location.objects.filter(town_id=simulation["town"], kind=LocationKind.ARENA)
    place = arenas.order_by("pk").values_list("address", flat=True)
    body = {
        "name": "Tamsin Orrell",
        "address": place.first(),
        "age": "thirty",
        "memories": ["I came to sell lanterns", "y" * 1001],
    }
    before = counts()
    response = api.post(f"/api/simulations/{simulation['id']}/residents/", body, format="json")
    assert response.status_code == 400, response.content
    fields = fields_of(response)
    assert set(fields) == {"age", "memories[1]"}, fields
    assert counts() == before


@pytest.mark.django_db
def test_a_town_with_a_bad_name_and_a_ragged_row_reports_both(api: APIClient) -> None:
    before = Town.objects.count()
    response = api.post("/api/towns/", RAGGED_TOWN, format="json")
    assert response.status_code == 400, response.content
    fields = fields_of(response)
    assert set(fields) == {"name", "rows[1]"}, fields
    assert "5 characters" in fields["rows[1]"][0]
    # A name that is taken is reported with the rows too.
    good = {**RAGGED_TOWN, "name": "weir_lock", "rows": ["#####", "#mm.#", "#####"]}
    assert api.post("/api/towns/", good, format="json").status_code == 201
    again = api.post("/api/towns/", {**good, "rows": ["#####", "#m", "#####"]}, format="json")
    assert set(fields_of(again)) == {"name", "rows[1]"}
    assert Town.objects.count() == before + 1


@pytest.mark.django_db
def test_a_malformed_body_is_a_problem_of_the_whole_request(api: APIClient) -> None:
    simulation = create(api)
    url = f"/api/simulations/{simulation['id']}/run/"
    response = api.post(url, '{"steps": 3,', content_type="application/json")
    assert response.status_code == 400
    problem = error_of(response)
    assert problem["code"] == "parse_error"
    assert [error["field"] for error in problem["errors"]] == [None]
    assert "JSON parse error" in problem["errors"][0]["message"]
    # Text no column can hold is named where it is.
    body = {"steps": 2, "note": ["ok", "bad\u0000"]}
    unsafe = api.post(url, json.dumps(body), content_type="application/json")
    assert set(fields_of(unsafe)) == {"note[1]"}
    assert Simulation.objects.get(pk=simulation["id"]).status == simulation["status"]


@pytest.mark.django_db
def test_each_kind_of_refusal_is_a_problem(api: APIClient, other_api: APIClient) -> None:
    simulation = create(api)
    url = f"/api/simulations/{simulation['id']}/"
    cases = {
        404: api.get("/api/no-such-thing/"),
        405: api.put("/api/towns/", {}, format="json"),
        401: APIClient().get("/api/simulations/"),
        406: api.get("/api/simulations/", HTTP_ACCEPT="image/png"),
        415: api.post(f"{url}run/", "steps=2", content_type="text/plain"),
    }
    for status, response in cases.items():
        assert response.status_code == status, (status, response.content)
        problem = error_of(response)
        assert problem["errors"] == []
    assert cases[401]["WWW-Authenticate"].startswith("Token")
    assert error_of(other_api.get(url))["code"] == "not_found"
    shipped = next(b for b in api.get("/api/bases/").json()["results"] if b["shipped"])
    forbidden = api.patch(f"/api/bases/{shipped['id']}/", {"description": "x"}, format="json")
    assert forbidden.status_code == 403 and error_of(forbidden)["errors"] == []
    # A request Django itself refuses (a Host it does not serve) is a problem too.
    suspicious = api.get("/api/simulations/", HTTP_HOST="not a host!")
    assert suspicious.status_code == 400
    assert [e["field"] for e in error_of(suspicious)["errors"]] == [None]
    # A browser asking for HTML gets the problem too.
    html = api.post(f"{url}run/", {"steps": 0}, format="json", HTTP_ACCEPT="text/html")
    assert set(fields_of(html)) == {"steps"}


@pytest.mark.django_db
def test_a_body_over_the_limit_is_a_413_problem(api: APIClient) -> None:
    with override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=100):
        response = api.post("/api/tokens/", {"name": "k" * 200}, format="json")
    assert response.status_code == 413
    problem = error_of(response)
    assert problem["code"] == "request_too_large" and problem["limit"] == 100


@pytest.mark.django_db
def test_a_throttled_request_is_a_429_problem_with_retry_after(
    api: APIClient, settings: Any
) -> None:
    simulation = create(api)
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "run": "1/minute"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    url = f"/api/simulations/{simulation['id']}/run/"
    assert api.post(url, {"steps": 0}, format="json").status_code == 400
    throttled = api.post(url, {"steps": 1}, format="json")
    assert throttled.status_code == 429
    assert error_of(throttled)["code"] == "throttled" and int(throttled["Retry-After"]) > 0
