"""Bases over REST: create, read, update, copy, delete; shipped ones read-only; another
user's not found; every bad field a 400 naming it, with nothing written."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.api import fields_of
from world.models import Base

from ..edits import with_field

TOWN = "brindle_green"
W = "Brindle Green"


def resident(name: str, home: str, **fields: Any) -> dict[str, Any]:
    return {
        "name": name,
        "age": 30,
        "innate": "careful, cheerful",
        "learned": f"{name} mends bicycles.",
        "currently": f"{name} is saving for a new workbench.",
        "lifestyle": f"{name} goes to bed around 10 pm and wakes up around 6 am.",
        "living_area": f"{W}:{home}:main room",
        "daily_plan_requirement": "",
        "start": {"address": f"{W}:{home}:main room"},
        "seed_memories": [f"{name} once fixed a tandem in one afternoon"],
        **fields,
    }


def five() -> dict[str, Any]:
    """A base of five residents written for the tests."""
    return {
        "name": "menders",
        "description": "five bicycle menders",
        "town": TOWN,
        "start_time": "2024-05-06T00:00:00Z",
        "sec_per_step": 10,
        "residents": [
            resident(
                "Ines Vark",
                "Wren cottage",
                relationships=[{"with": "Bram Vark", "memory": "Ines Vark is Bram Vark's aunt"}],
            ),
            resident("Bram Vark", "Wren cottage"),
            resident("Cleo Dunn", "Alder house", start={"tile": [20, 14]}),
            resident("Dov Ashby", "Alder house"),
            resident("Elke Moor", "Moss flat"),
        ],
    }


@pytest.mark.django_db
def test_create_read_update_copy_delete(api: APIClient) -> None:
    created = api.post("/api/bases/", five(), format="json")
    assert created.status_code == 201, created.content
    body = created.json()
    assert body["name"] == "menders" and not body["shipped"] and body["owner"] == "alice"
    assert [r["name"] for r in body["residents"]] == [r["name"] for r in five()["residents"]]
    assert body["residents"][0]["relationships"] == [
        {"with": "Bram Vark", "memory": "Ines Vark is Bram Vark's aunt"}
    ]
    url = f"/api/bases/{body['id']}/"
    assert api.get(url).json() == body

    changed = api.patch(url, {"description": "menders of Brindle"}, format="json")
    assert changed.status_code == 200, changed.content
    assert changed.json()["description"] == "menders of Brindle"
    assert changed.json()["residents"] == body["residents"]

    copied = api.post(f"{url}copy/", {}, format="json")
    assert copied.status_code == 201, copied.content
    assert copied.json()["name"] == "menders (copy)"
    assert copied.json()["residents"] == body["residents"]

    names = {row["name"] for row in api.get("/api/bases/").json()["results"]}
    assert {"menders", "menders (copy)", "base_the_ville_n25", "base_brindle_green_n5"} <= names

    assert api.delete(url).status_code == 204
    assert api.get(url).status_code == 404


@pytest.mark.django_db
def test_shipped_are_read_only_and_copyable(api: APIClient) -> None:
    shipped = api.get("/api/bases/").json()["results"]
    village = next(row for row in shipped if row["name"] == "base_brindle_green_n5")
    assert village["shipped"] and village["owner"] is None and len(village["residents"]) == 5
    url = f"/api/bases/{village['id']}/"
    assert api.patch(url, {"description": "x"}, format="json").status_code == 403
    assert api.delete(url).status_code == 403
    mine = api.post(f"{url}copy/", {"name": "my village"}, format="json")
    assert mine.status_code == 201 and mine.json()["owner"] == "alice"


@pytest.mark.django_db
def test_another_users_base_is_not_found(api: APIClient, other_api: APIClient) -> None:
    body = api.post("/api/bases/", five(), format="json").json()
    assert other_api.get(f"/api/bases/{body['id']}/").status_code == 404
    assert other_api.post(f"/api/bases/{body['id']}/copy/", {}, format="json").status_code == 404
    names = {row["name"] for row in other_api.get("/api/bases/").json()["results"]}
    assert "menders" not in names
    refused = other_api.post("/api/simulations/", {"base": body["id"]}, format="json")
    assert refused.status_code == 400 and "base" in fields_of(refused)


BAD = [
    ("town", "nowhere_at_all", "town"),
    ("start_time", "yesterday", "start_time"),
    ("sec_per_step", 0, "sec_per_step"),
    ("sec_per_step", "10", "sec_per_step"),
    ("residents", [], "residents"),
    ("residents.1.name", "ines vark", "residents[1].name"),  # duplicate up to case
    ("residents.0.age", -1, "residents[0].age"),
    ("residents.0.living_area", f"{W}:Nowhere:attic", "residents[0].living_area"),
    ("residents.0.start", {"address": f"{W}:Nowhere"}, "residents[0].start.address"),
    ("residents.0.start", {"tile": [0, 0]}, "residents[0].start.tile"),  # a wall
    ("residents.0.start", {"tile": [500, 3]}, "residents[0].start.tile"),
    ("residents.0.start", {}, "residents[0].start"),
    ("residents.0.seed_memories", ["x" * 1001], "residents[0].seed_memories[0]"),
    (
        "residents.0.relationships",
        [{"with": "Nobody Here", "memory": "m"}],
        "residents[0].relationships[0].with",
    ),
    ("residents.0.hobby", "chess", "residents[0].hobby"),
    ("residents.0.name", "a:b", "residents[0].name"),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("path", "value", "field"), BAD)
def test_bad_field_is_named_and_nothing_written(
    api: APIClient, path: str, value: Any, field: str
) -> None:
    api.get("/api/bases/")  # the shipped ones are rows already
    before = Base.objects.count()
    response = api.post("/api/bases/", with_field(five(), path, value), format="json")
    assert response.status_code == 400, response.content
    assert field in fields_of(response), response.content
    assert Base.objects.count() == before


@pytest.mark.django_db
def test_bad_update_writes_nothing(api: APIClient) -> None:
    body = api.post("/api/bases/", five(), format="json").json()
    url = f"/api/bases/{body['id']}/"
    bad = with_field(five(), "residents.2.living_area", f"{W}:Nowhere:attic")
    response = api.put(url, bad, format="json")
    assert "residents[2].living_area" in fields_of(response)
    assert api.get(url).json() == body
    taken = api.patch(url, {"name": "base_the_ville_n25"}, format="json")
    assert "name" in fields_of(taken)
