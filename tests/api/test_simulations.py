"""Simulations: create from a base, detail, malformed bodies write nothing, fork."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from agents.bases import BASES, base_load
from world.models import Event, Simulation

from . import N3, N25, advance, counts, create, error_of

DEFAULT_CONFIG = {
    "version": 1,
    "cognition": "paper",
    "ablations": [],
    "reflection_threshold": None,
    "importance_delay": 30,
    "retrieval_weights": "paper",
}


@pytest.mark.django_db
@pytest.mark.parametrize(("base", "residents"), [(N25, 25), (N3, 3)])
def test_create_from_each_base(api: APIClient, base: str, residents: int) -> None:
    config = {"cognition": "minimal", "reflection_threshold": 40}
    body = create(api, base, name="my run", seed=7, sec_per_step=30, config=config)
    assert body["base"] == base and body["name"] == "my run"
    assert (body["seed"], body["sec_per_step"]) == (7, 30)
    assert body["config"] == {**DEFAULT_CONFIG, **config}  # stored normalised
    assert (body["step"], body["status"], body["resident_count"]) == (0, "idle", residents)
    assert body["sim_time"] == body["start_time"]
    assert body["parent"] is None and body["forked_at_step"] is None

    listed = api.get(f"/api/simulations/{body['id']}/residents/?limit=100").json()
    assert listed["count"] == residents
    tiles = {row["name"]: tuple(row["tile"]) for row in listed["results"]}
    assert tiles == {p.name: p.tile for p in base_load(base).personas}


@pytest.mark.django_db
def test_create_defaults(api: APIClient) -> None:
    response = api.post("/api/simulations/", {"base": N3}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    loaded = base_load(N3)
    assert body["name"] == N3
    assert body["seed"] == 0 and body["config"] == DEFAULT_CONFIG
    assert body["config"]["cognition"] == "paper"  # the paper's architecture by default
    assert body["sec_per_step"] == loaded.sec_per_step


@pytest.mark.django_db
def test_detail_has_every_field(api: APIClient) -> None:
    created = create(api)
    body = api.get(f"/api/simulations/{created['id']}/").json()
    assert body == created
    assert set(body) == {
        "id",
        "name",
        "town",
        "base",
        "start_time",
        "sim_time",
        "sec_per_step",
        "step",
        "status",
        "status_reason",
        "pace",
        "pace_alone",
        "seed",
        "config",
        "parent",
        "forked_at_step",
        "created_at",
        "resident_count",
        "share",
        "role",
    }


MALFORMED: list[Any] = [
    {},
    {"base": "base_nowhere"},
    {"base": None},
    {"base": N3, "seed": "1"},
    {"base": N3, "seed": 1.5},
    {"base": N3, "seed": True},
    {"base": N3, "seed": -1},
    {"base": N3, "seed": 2**31},
    {"base": N3, "sec_per_step": 0},
    {"base": N3, "sec_per_step": 3601},
    {"base": N3, "sec_per_step": "10"},
    {"base": N3, "name": "x" * 201},
    {"base": N3, "name": 5},
    {"base": N3, "config": [1, 2]},
    {"base": N3, "config": "{}"},
    {"base": N3, "junk": 1},
    {"base": N3, "owner": 2},
    [N3],
    "base_the_ville_n25",
    None,
]


@pytest.mark.django_db
@pytest.mark.parametrize("body", MALFORMED)
def test_malformed_create_is_400_and_writes_nothing(api: APIClient, ville: Any, body: Any) -> None:
    before = counts()
    response = api.post("/api/simulations/", body, format="json")
    assert response.status_code == 400, response.content
    error_of(response)
    assert counts() == before


@pytest.mark.django_db
@pytest.mark.parametrize("raw", [b"{not json", b'{"base": "base_the_ville_n25",}', b"\xff\xfe"])
def test_non_json_create_is_400(api: APIClient, ville: Any, raw: bytes) -> None:
    before = counts()
    response = api.post("/api/simulations/", raw, content_type="application/json")
    assert response.status_code == 400
    assert error_of(response)["code"] == "parse_error"
    assert counts() == before


@pytest.mark.django_db
def test_form_bodies_are_refused(api: APIClient, ville: Any) -> None:
    before = counts()
    response = api.post("/api/simulations/", {"base": N3})  # multipart
    assert response.status_code == 415
    assert error_of(response)["code"] == "unsupported_media_type"
    assert counts() == before


@pytest.mark.django_db
def test_unknown_field_is_named(api: APIClient, ville: Any) -> None:
    error = error_of(api.post("/api/simulations/", {"base": N3, "sead": 1}, format="json"))
    assert error["errors"] == [{"field": "sead", "message": "Unknown field."}]
    assert error["detail"].startswith("sead:")


@pytest.mark.django_db
def test_unknown_base_lists_the_choices(api: APIClient, ville: Any) -> None:
    error = error_of(api.post("/api/simulations/", {"base": "x"}, format="json"))
    assert error["code"] == "invalid"
    assert error["detail"].startswith("base:")
    assert all(name in error["detail"] for name in BASES)


def _events(client: APIClient, simulation_id: int) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    url: str | None = f"/api/simulations/{simulation_id}/events/?page_size=1000"
    while url:
        page = client.get(url).json()
        rows += page["results"]
        url = page["next"]
    return [{k: v for k, v in row.items() if k != "created_at"} for row in rows]


@pytest.mark.django_db
def test_fork_copies_the_log_up_to_the_step(api: APIClient) -> None:
    parent = create(api)
    advance(parent["id"], 5)
    response = api.post(
        f"/api/simulations/{parent['id']}/fork/", {"step": 3, "name": "what if"}, format="json"
    )
    assert response.status_code == 201, response.content
    child = response.json()
    assert child["id"] != parent["id"]
    assert (child["parent"], child["forked_at_step"], child["step"]) == (parent["id"], 3, 3)
    assert child["name"] == "what if" and child["resident_count"] == 3
    assert Simulation.objects.get(pk=child["id"]).owner.username == "alice"
    parent_events = [e for e in _events(api, parent["id"]) if e["step"] <= 3]
    assert _events(api, child["id"]) == parent_events
    assert len(parent_events) < Event.objects.filter(simulation_id=parent["id"]).count()


@pytest.mark.django_db
def test_fork_defaults_to_the_current_step(api: APIClient) -> None:
    parent = create(api)
    advance(parent["id"], 2)
    child = api.post(f"/api/simulations/{parent['id']}/fork/", format="json").json()
    assert child["forked_at_step"] == 2 and child["step"] == 2
    assert _events(api, child["id"]) == _events(api, parent["id"])


@pytest.mark.django_db
@pytest.mark.parametrize(
    "body", [{"step": 3}, {"step": -1}, {"step": "1"}, {"step": None}, {"stepp": 1}, [1]]
)
def test_bad_fork_is_400_and_writes_nothing(api: APIClient, body: Any) -> None:
    parent = create(api)
    advance(parent["id"], 2)
    before = counts()
    response = api.post(f"/api/simulations/{parent['id']}/fork/", body, format="json")
    assert response.status_code == 400, response.content
    error_of(response)
    assert counts() == before


@pytest.mark.django_db
def test_list_is_paginated_and_newest_first(api: APIClient) -> None:
    first, second = create(api, name="a"), create(api, name="b")
    body = api.get("/api/simulations/").json()
    assert body["count"] == 2
    assert [row["id"] for row in body["results"]] == [second["id"], first["id"]]
    assert all(row["resident_count"] == 3 for row in body["results"])
