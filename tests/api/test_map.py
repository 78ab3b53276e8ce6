"""The town's map for drawing: layers, places, objects, caching, auth."""

from __future__ import annotations

from rest_framework.test import APIClient

from world.models import Location, LocationKind, Town
from world.townmap import runs, runs_decode

from . import error_of


def test_runs_round_trip() -> None:
    values = [0, 0, 1, 1, 1, 0, 2, 2]
    assert runs(values) == [0, 2, 1, 3, 0, 1, 2, 2]
    assert runs_decode(runs(values)) == values


def test_map_has_the_layers_places_and_objects_of_the_town(api: APIClient, ville: Town) -> None:
    response = api.get(f"/api/towns/{ville.pk}/map/")
    assert response.status_code == 200, response.content
    body = response.json()
    size = ville.width * ville.height
    assert (body["width"], body["height"]) == (ville.width, ville.height)

    collision = runs_decode(body["collision"])
    assert len(collision) == size
    assert collision == [1 if v else 0 for v in ville.collision]

    # Every tile of a place is drawn in its colour, and its label lies inside it.
    sectors = runs_decode(body["sector_tiles"])
    arenas = runs_decode(body["arena_tiles"])
    assert len(sectors) == len(arenas) == size
    cafe = next(s for s in body["sectors"] if s["name"] == "Hobbs Cafe")
    cafe_row = Location.objects.get(town=ville, kind=LocationKind.SECTOR, name="Hobbs Cafe")
    assert {i for i, v in enumerate(sectors) if v == cafe["index"] + 1} == set(cafe_row.tiles)
    x, y = cafe["label_tile"]
    assert sectors[y * ville.width + x] == cafe["index"] + 1
    kitchen = next(a for a in body["arenas"] if a["address"].endswith("Hobbs Cafe:cafe"))
    assert kitchen["sector"] == cafe["index"]
    assert len(body["arenas"]) == Location.objects.filter(town=ville, kind="arena").count()

    piano = next(o for o in body["objects"] if o["address"].endswith("Hobbs Cafe:cafe:piano"))
    assert piano["arena"] == kitchen["index"]
    for px, py in piano["tiles"]:
        assert arenas[py * ville.width + px] == kitchen["index"] + 1


def test_map_is_cacheable_and_revalidates(api: APIClient, ville: Town) -> None:
    first = api.get(f"/api/towns/{ville.pk}/map/")
    assert "max-age" in first["Cache-Control"]
    etag = first["ETag"]
    again = api.get(f"/api/towns/{ville.pk}/map/", HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304
    assert not again.content


def test_map_needs_auth_and_a_real_town(api: APIClient, ville: Town) -> None:
    assert APIClient().get(f"/api/towns/{ville.pk}/map/").status_code == 401
    missing = api.get("/api/towns/999999/map/")
    assert missing.status_code == 404
    assert error_of(missing)["code"] == "not_found"
