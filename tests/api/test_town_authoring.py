"""Towns over REST: a user creates a town from a grid file or a Tiled map, walks in it, uses
it in a base and deletes it once nothing uses it; shipped towns are read-only; nobody sees
or uses another user's towns; every bad input is a 400 naming the field, writing nothing."""

from __future__ import annotations

import json
import re
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings
from rest_framework.test import APIClient

from tests.edits import with_field
from tests.tiled import WORLD, barn_map, tiled_map
from world.models import Base, Location, Simulation, Town

from . import error_of, fields_of

# A made-up row of shops: a cottage and a chandlery joined by a lane; `@` a spawn point.
GRID: dict[str, Any] = {
    "format": "smallville-town/1",
    "name": "tallow_lane",
    "world": "Tallow Lane",
    "tile_size": 32,
    "rows": [
        "###########",
        "#ccc#sssss#",
        "#cbc#ssdss#",
        "#c.c#sssss#",
        "##.###.####",
        "#....@....#",
        "###########",
    ],
    "legend": {
        "#": {"wall": True},
        ".": {},
        "c": {"sector": "Wick cottage", "arena": "kitchen"},
        "b": {"sector": "Wick cottage", "arena": "kitchen", "object": "bench"},
        "s": {"sector": "Tallow chandlery", "arena": "shop floor"},
        "d": {"sector": "Tallow chandlery", "arena": "shop floor", "object": "dipping vat"},
        "@": {"sector": "Tallow chandlery", "arena": "shop floor", "spawn": "lane end"},
    },
}
COTTAGE = "Tallow Lane:Wick cottage:kitchen"


def rows() -> tuple[int, int, int]:
    return Town.objects.count(), Location.objects.count(), Base.objects.count()


def base_in(town: str, name: str = "lane folk") -> dict[str, Any]:
    """A base of two made-up residents in `town` (GRID's places)."""
    person = {
        "innate": "patient",
        "learned": "makes candles",
        "living_area": COTTAGE,
        "start": {"address": COTTAGE},
    }
    return {
        "name": name,
        "town": town,
        "start_time": "2024-03-04T07:00:00Z",
        "residents": [{"name": "Odo Wick", **person}, {"name": "Rue Wick", **person}],
    }


@pytest.mark.django_db
def test_a_grid_town_is_created_walked_in_used_and_deleted(api: APIClient) -> None:
    made = api.post("/api/towns/", GRID, format="json")
    assert made.status_code == 201, made.content
    town = made.json()
    assert (town["name"], town["world_name"], town["width"], town["height"]) == (
        "tallow_lane",
        "Tallow Lane",
        11,
        7,
    )
    assert (town["owner"], town["shipped"]) == ("alice", False)
    assert (town["sector_count"], town["arena_count"], town["object_count"]) == (2, 2, 2)
    url = f"/api/towns/{town['id']}/"
    assert api.get(url).json() == town
    assert town["id"] in [row["id"] for row in api.get("/api/towns/").json()["results"]]

    walk = api.get(
        f"{url}path/",
        {"from": COTTAGE, "to": "Tallow Lane:Tallow chandlery:shop floor:dipping vat"},
    )
    assert walk.status_code == 200, walk.content
    assert walk.json()["path"][-1] == [7, 2] and walk.json()["length"] > 5
    drawn = api.get(f"{url}map/").json()
    assert {a["address"] for a in drawn["arenas"]} == {
        COTTAGE,
        "Tallow Lane:Tallow chandlery:shop floor",
    }

    # Used by a base, then by a simulation: it cannot go while they use it.
    base = api.post("/api/bases/", base_in("tallow_lane"), format="json")
    assert base.status_code == 201, base.content
    refused = api.delete(url)
    assert refused.status_code == 409
    assert "lane folk" in error_of(refused)["detail"]
    simulation = api.post(
        "/api/simulations/",
        {"base": base.json()["id"], "config": {"cognition": "minimal"}},
        format="json",
    )
    assert simulation.status_code == 201, simulation.content
    assert simulation.json()["town"] == town["id"]
    assert api.delete(f"/api/bases/{base.json()['id']}/").status_code == 204
    assert "simulation" in error_of(api.delete(url))["detail"]
    Simulation.objects.filter(pk=simulation.json()["id"]).delete()  # no REST delete yet
    assert api.delete(url).status_code == 204
    assert api.get(url).status_code == 404
    assert not Location.objects.filter(town_id=town["id"]).exists()


@pytest.mark.django_db
def test_a_tiled_map_over_rest_gives_a_walk_between_two_places(api: APIClient) -> None:
    data = tiled_map()
    made = api.post("/api/towns/", data, format="json")
    assert made.status_code == 201, made.content
    town = made.json()
    assert (town["name"], town["world_name"], town["owner"]) == ("hollow_end", WORLD, "alice")
    walk = api.get(
        f"/api/towns/{town['id']}/path/",
        {"from": f"{WORLD}:Fenn cottage:parlour", "to": f"{WORLD}:Hollow green:lawn:oak tree"},
    )
    assert walk.status_code == 200, walk.content
    path = walk.json()["path"]
    assert path[-1] == [9, 7]  # the oak tree's tile
    assert all(abs(a - c) + abs(b - d) == 1 for (a, b), (c, d) in pairwise(path))
    # The same name again, in any case, is taken.
    again = api.post("/api/towns/", tiled_map(name="Hollow_END"), format="json")
    assert again.status_code == 400 and "properties.name" in fields_of(again)


@pytest.mark.django_db
def test_another_users_town_is_not_found_nor_usable(api: APIClient, other_api: APIClient) -> None:
    mine = api.post("/api/towns/", GRID, format="json").json()
    url = f"/api/towns/{mine['id']}"
    for response in (
        other_api.get(f"{url}/"),
        other_api.get(f"{url}/path/", {"from_x": 2, "from_y": 5, "to_x": 3, "to_y": 5}),
        other_api.get(f"{url}/locations/"),
        other_api.get(f"{url}/map/"),
        other_api.delete(f"{url}/"),
    ):
        assert response.status_code == 404, response.content
        assert error_of(response)["code"] == "not_found"
    listed = [row["id"] for row in other_api.get("/api/towns/").json()["results"]]
    assert mine["id"] not in listed
    # A base naming it is refused as a base naming no town; nothing is written.
    before = rows()
    refused = other_api.post("/api/bases/", base_in("tallow_lane"), format="json")
    assert refused.status_code == 400
    assert "tallow_lane" in fields_of(refused)["town"][0]
    assert rows() == before
    # Their own town of the same name is theirs: names are per owner.
    theirs = other_api.post("/api/towns/", GRID, format="json")
    assert theirs.status_code == 201 and theirs.json()["id"] != mine["id"]
    assert other_api.post("/api/bases/", base_in("tallow_lane"), format="json").status_code == 201
    assert Town.objects.get(pk=mine["id"]).owner is not None


@pytest.mark.django_db
def test_shipped_towns_are_visible_to_all_and_read_only(
    api: APIClient, other_api: APIClient, ville: Town
) -> None:
    for client in (api, other_api):
        row = client.get(f"/api/towns/{ville.pk}/").json()
        assert (row["shipped"], row["owner"]) == (True, None)
    refused = api.delete(f"/api/towns/{ville.pk}/")
    assert refused.status_code == 403 and error_of(refused)["code"] == "permission_denied"
    assert api.put(f"/api/towns/{ville.pk}/", GRID, format="json").status_code == 405
    named = api.post("/api/towns/", {**GRID, "name": "The_Ville"}, format="json")
    assert named.status_code == 400 and "name" in fields_of(named)
    unimported = api.post("/api/towns/", {**GRID, "name": "brindle_green"}, format="json")
    assert unimported.status_code == 400 and "name" in fields_of(unimported)


BAD = [
    ("format", "smallville-town/2", "format"),
    ("name", "tallow lane", "name"),
    ("name", "x" * 101, "name"),
    ("world", 7, "world"),
    ("tile_size", 300, "tile_size"),
    ("rows.3", "#c.c#ssss#", "rows[3]"),  # one tile short: sizes disagree
    ("rows", ["." * 201], "rows[0]"),
    ("rows", ["#"] * 201, "rows"),
    ("rows.4", "###########", "rows"),  # the houses walled off the lane
    ("legend.s", {"sector": "TALLOW chandlery", "arena": "shop floor"}, "legend.d"),
    ("legend.b", {"sector": "Wick cottage", "object": "bench"}, "legend.b"),
    ("legend.c", {"sector": "Wick cottage", "arena": "kitchen", "colour": "red"}, "legend.c"),
    ("legend.#", {"wall": "yes"}, 'legend["#"].wall'),
    ("acres", 12, "acres"),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("path", "value", "field"), BAD)
def test_bad_town_field_is_a_400_naming_it_and_nothing_written(
    api: APIClient, path: str, value: Any, field: str
) -> None:
    before = rows()
    response = api.post("/api/towns/", with_field(GRID, path, value), format="json")
    assert response.status_code == 400, response.content
    assert field in fields_of(response), response.content
    assert rows() == before


@pytest.mark.django_db
@pytest.mark.parametrize("body", [[GRID], "tallow", {"type": "tileset"}])
def test_a_body_of_no_known_format_is_a_400(api: APIClient, body: Any) -> None:
    before = rows()
    response = api.post("/api/towns/", body, format="json")
    assert response.status_code == 400, response.content
    assert rows() == before


@pytest.mark.django_db
def test_a_map_larger_than_other_bodies_is_taken_and_one_over_the_town_limit_is_413(
    api: APIClient, settings: Any
) -> None:
    # 150x150 tiles in five layers: more than the 256 KiB other bodies may have.
    width = 150
    body = json.dumps(barn_map(width))
    assert len(body) > django_settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    made = api.post("/api/towns/", body, content_type="application/json")
    assert made.status_code == 201, made.content[:300]
    assert (made.json()["width"], made.json()["height"]) == (width, width)

    settings.SMALLVILLE_MAX_TOWN_BYTES = len(body) - 1
    before = rows()
    over = api.post("/api/towns/", body, content_type="application/json")
    assert over.status_code == 413
    problem = error_of(over)
    assert (problem["limit"], problem["length"]) == (len(body) - 1, len(body))
    assert rows() == before


@pytest.mark.django_db
def test_the_documented_town_is_created_and_walked_in_as_the_docs_say(api: APIClient) -> None:
    docs = (Path(django_settings.BASE_DIR) / "docs" / "authoring.md").read_text()
    example = re.search(r"## Towns from a compact JSON grid.*?```json\n(.*?)```", docs, re.S)
    assert example is not None
    made = api.post("/api/towns/", json.loads(example.group(1)), format="json")
    assert made.status_code == 201, made.content
    assert (made.json()["name"], made.json()["object_count"]) == ("pebble_row", 2)
    walk = api.get(
        f"/api/towns/{made.json()['id']}/path/",
        {"from": "Pebble Row:Gull house:room", "to": "Pebble Row:Tin kiosk:counter area:till"},
    )
    assert walk.status_code == 200 and walk.json()["length"] > 0, walk.content
