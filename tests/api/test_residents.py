"""Residents of a simulation: list, detail by name or id, and the place at each tile."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from agents.bases import base_load
from world.models import Location, LocationKind, Town

from . import N3, N25, advance, create


def _place_at(town: Town, x: int, y: int) -> str:
    """The deepest place of the tree (arena, else sector, else world) holding the tile."""
    index = town.tile_index(x, y)
    for kind in (LocationKind.ARENA, LocationKind.SECTOR):
        place = Location.objects.filter(town=town, kind=kind, tiles__contains=[index]).first()
        if place is not None:
            return place.address
    return town.world_name


@pytest.mark.django_db
def test_list_has_identity_tile_and_place(api: APIClient, ville: Town) -> None:
    simulation = create(api, N3)
    body = api.get(f"/api/simulations/{simulation['id']}/residents/").json()
    assert body["count"] == 3
    isabella = next(row for row in body["results"] if row["name"] == "Isabella Rodriguez")
    assert isabella["tile"] == [72, 14]
    assert isabella["first_name"] == "Isabella" and isabella["age"] == 34
    assert isabella["innate"] and isabella["lifestyle"] and isabella["living_area"]
    for row in body["results"]:
        assert "spatial_memory" not in row and "seed_statements" not in row
        assert row["location"] == _place_at(ville, *row["tile"])
    assert isabella["location"].count(":") == 2, "Isabella starts inside an arena"


@pytest.mark.django_db
def test_detail_by_name_or_id_has_spatial_memory(api: APIClient, ville: Town) -> None:
    simulation = create(api, N3)
    base = f"/api/simulations/{simulation['id']}/residents"
    by_name = api.get(f"{base}/{quote('Klaus Mueller')}/")
    assert by_name.status_code == 200
    body = by_name.json()
    assert body["spatial_memory"] and body["tile"] == [126, 46]
    assert api.get(f"{base}/{body['id']}/").json() == body
    assert api.get(f"{base}/Nobody Here/").status_code == 404


@pytest.mark.django_db
def test_tiles_follow_moves(api: APIClient, ville: Town) -> None:
    simulation = create(api, N3)
    advance(simulation["id"], 2)
    rows = api.get(f"/api/simulations/{simulation['id']}/residents/").json()["results"]
    starts = {p.name: p.tile for p in base_load(N3).personas}
    assert {row["name"]: tuple(row["tile"]) for row in rows} == {
        name: (x + 2, y) for name, (x, y) in starts.items()
    }


def _queries(api: APIClient, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert api.get(url).status_code == 200
    return len(captured)


@pytest.mark.django_db
def test_list_queries_do_not_grow_with_residents(api: APIClient, ville: Any) -> None:
    small, large = create(api, N3), create(api, N25)
    few = _queries(api, f"/api/simulations/{small['id']}/residents/")
    many = _queries(api, f"/api/simulations/{large['id']}/residents/")
    assert few == many <= 6


@pytest.mark.django_db
def test_search_by_name(api: APIClient, ville: Any) -> None:
    simulation = create(api, N25)
    rows = api.get(f"/api/simulations/{simulation['id']}/residents/?search=lopez").json()
    assert sorted(row["name"] for row in rows["results"]) == ["Francisco Lopez", "Maria Lopez"]
