"""Towns, their place tree, and walks between places."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import pytest
from rest_framework.test import APIClient

from world.models import Location, LocationKind, Town
from world.towns import DATA_DIR, THE_VILLE, town_import

from . import error_of


@pytest.mark.django_db
def test_town_list_and_detail_have_counts_not_layers(api: APIClient, ville: Town) -> None:
    listed = api.get("/api/towns/").json()
    row = next(r for r in listed["results"] if r["id"] == ville.pk)
    assert row == api.get(f"/api/towns/{ville.pk}/").json()
    assert (row["name"], row["world_name"]) == ("the_ville", "the Ville")
    assert (row["width"], row["height"]) == (ville.width, ville.height)
    places = Location.objects.filter(town=ville)
    assert row["sector_count"] == places.filter(kind=LocationKind.SECTOR).count() > 0
    assert row["arena_count"] == places.filter(kind=LocationKind.ARENA).count() > 0
    assert row["object_count"] == places.filter(kind=LocationKind.OBJECT).count() > 0
    assert row["walkable_tiles"] == ville.collision.count(0) > 0
    assert not {"collision", "arena_layer", "sector_layer", "legends"} & set(row)


@pytest.mark.django_db
@pytest.mark.parametrize("kind", [k.value for k in LocationKind])
def test_locations_filter_by_kind(api: APIClient, ville: Town, kind: str) -> None:
    body = api.get(f"/api/towns/{ville.pk}/locations/?kind={kind}&limit=1000").json()
    assert body["count"] == Location.objects.filter(town=ville, kind=kind).count() > 0
    assert {row["kind"] for row in body["results"]} == {kind}
    assert all("tiles" not in row for row in body["results"])


@pytest.mark.django_db
def test_locations_search_by_address(api: APIClient, ville: Town) -> None:
    body = api.get(f"/api/towns/{ville.pk}/locations/?search=HOBBS cafe&limit=1000").json()
    addresses = [row["address"] for row in body["results"]]
    assert "the Ville:Hobbs Cafe" in addresses
    assert all("hobbs cafe" in a.lower() for a in addresses)
    expected = Location.objects.filter(town=ville, address__icontains="hobbs cafe").count()
    assert body["count"] == expected


@pytest.mark.django_db
def test_locations_filter_by_parent(api: APIClient, ville: Town) -> None:
    cafe = Location.objects.get(town=ville, address="the Ville:Hobbs Cafe")
    body = api.get(f"/api/towns/{ville.pk}/locations/?parent={cafe.pk}").json()
    assert body["count"] == cafe.children.count() > 0
    assert {row["parent"] for row in body["results"]} == {cafe.pk}


@pytest.mark.django_db
def test_location_detail_has_tiles_as_xy(api: APIClient, ville: Town) -> None:
    cafe = Location.objects.get(town=ville, address="the Ville:Hobbs Cafe:cafe")
    body = api.get(f"/api/towns/{ville.pk}/locations/{cafe.pk}/").json()
    assert body["tile_count"] == len(cafe.tiles) == len(body["tiles"])
    assert [ville.tile_index(x, y) for x, y in body["tiles"]] == cafe.tiles


@pytest.mark.django_db
def test_locations_include_tiles_on_request(api: APIClient, ville: Town) -> None:
    url = f"/api/towns/{ville.pk}/locations/?kind=arena&search=Hobbs Cafe&include_tiles=true"
    rows = api.get(url).json()["results"]
    assert rows and all(len(row["tiles"]) == row["tile_count"] for row in rows)


@pytest.mark.django_db
def test_location_of_another_town_is_404(api: APIClient, ville: Town) -> None:
    place = Location.objects.filter(town=ville).first()
    assert place is not None
    other = town_import(source=DATA_DIR / THE_VILLE, name="another ville")
    assert api.get(f"/api/towns/{other.pk}/locations/{place.pk}/").status_code == 404
    assert api.get(f"/api/towns/{ville.pk}/locations/{place.pk}/").status_code == 200


@pytest.mark.django_db
def test_bad_filter_value_is_400(api: APIClient, ville: Town) -> None:
    response = api.get(f"/api/towns/{ville.pk}/locations/?kind=street")
    assert response.status_code == 400
    assert error_of(response)["detail"].startswith("kind:")


def _path(api: APIClient, town: Town, **query: Any) -> Any:
    return api.get(f"/api/towns/{town.pk}/path/", query)


def _assert_walk(body: dict[str, Any], town: Town) -> None:
    path = body["path"]
    assert body["length"] == len(path) - 1
    for (x0, y0), (x1, y1) in pairwise(path):
        assert abs(x0 - x1) + abs(y0 - y1) == 1
    assert all(town.collision[town.tile_index(x, y)] == 0 for x, y in path)


@pytest.mark.django_db
def test_path_between_addresses(api: APIClient, ville: Town) -> None:
    response = _path(api, ville, **{"from": "the Ville:Hobbs Cafe", "to": "the Ville:Johnson Park"})
    assert response.status_code == 200, response.content
    body = response.json()
    _assert_walk(body, ville)
    park = Location.objects.get(town=ville, address="the Ville:Johnson Park")
    assert ville.tile_index(*body["path"][-1]) in park.tiles


@pytest.mark.django_db
def test_path_between_tiles_and_mixed(api: APIClient, ville: Town) -> None:
    # Isabella's and Klaus's start tiles (both walkable).
    body = _path(api, ville, from_x=72, from_y=14, to_x=126, to_y=46).json()
    _assert_walk(body, ville)
    assert body["path"][0] == [72, 14] and body["path"][-1] == [126, 46]
    mixed = _path(api, ville, from_x=72, from_y=14, to="the Ville:Hobbs Cafe").json()
    _assert_walk(mixed, ville)
    other = _path(api, ville, **{"from": "the Ville:Hobbs Cafe", "to_x": 72, "to_y": 14}).json()
    _assert_walk(other, ville)
    assert other["path"][-1] == [72, 14]


@pytest.mark.django_db
def test_path_unknown_address_suggests(api: APIClient, ville: Town) -> None:
    response = _path(api, ville, **{"from": "the Ville:Hobbs Cafe", "to": "the ville:hobbs cafe"})
    assert response.status_code == 400
    error = error_of(response)
    assert error["detail"].startswith("to:")
    assert [e["field"] for e in error["errors"]] == ["to"]
    assert "the Ville:Hobbs Cafe" in error["suggestions"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "query",
    [
        {},
        {"from": "the Ville:Hobbs Cafe"},
        {"from_x": 72, "to": "the Ville:Hobbs Cafe"},
        {"from": "the Ville:Hobbs Cafe", "from_x": 1, "from_y": 1, "to": "the Ville"},
        {"from_x": "a", "from_y": 1, "to_x": 2, "to_y": 2},
        {"from_x": 0, "from_y": 0, "to_x": 72, "to_y": 14},  # a wall
        {"from_x": 10_000, "from_y": 0, "to_x": 72, "to_y": 14},  # off the map
    ],
)
def test_bad_path_query_is_400(api: APIClient, ville: Town, query: dict[str, Any]) -> None:
    response = _path(api, ville, **query)
    assert response.status_code == 400, response.content
    error_of(response)


@pytest.mark.django_db
def test_a_migrated_database_lists_the_shipped_towns_before_anything_uses_them(
    api: APIClient,
) -> None:
    from django.core.management import call_command

    from world.models import Base
    from world.towns import shipped_town_names

    Base.objects.filter(owner__isnull=True).delete()
    Town.objects.filter(owner__isnull=True).delete()
    assert api.get("/api/towns/").json()["count"] == 0  # as a database nothing has used
    call_command("migrate", verbosity=0)
    listed = api.get("/api/towns/?limit=100").json()["results"]
    assert sorted(row["name"] for row in listed) == shipped_town_names()
    assert all(row["shipped"] for row in listed)


@pytest.mark.django_db
def test_towns_search_by_name_or_world(api: APIClient) -> None:
    for name, world in (("Quillby", "Quillby on Sea"), ("Marrow_fen", "the Fens of Marrow")):
        grid = {
            "format": "smallville-town/1",
            "name": name,
            "world": world,
            "rows": ["#####", "#hh.#", "#####"],
            "legend": {"#": {"wall": True}, ".": {}, "h": {"sector": "Tarn hut", "arena": "room"}},
        }
        assert api.post("/api/towns/", grid, format="json").status_code == 201
    names = [row["name"] for row in api.get("/api/towns/?search=QUILL").json()["results"]]
    assert names == ["Quillby"]
    by_world = api.get("/api/towns/?search=fens of").json()["results"]
    assert [row["name"] for row in by_world] == ["Marrow_fen"]
    assert api.get("/api/towns/?search=nowhere-at-all").json()["count"] == 0
