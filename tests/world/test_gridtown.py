"""Grid towns (smallville-town/1): a small map made up here becomes a town; each bad field
is named and nothing is written."""

from __future__ import annotations

from typing import Any

import pytest

from tests.edits import with_field
from world.gridtown import MAX_SIDE, TownInvalid, town_from_grid
from world.models import Location, Town
from world.paths import location_anchor, path_between_locations

GRID = {
    "format": "smallville-town/1",
    "name": "pebble_row",
    "world": "Pebble Row",
    "rows": [
        "#########",
        "#hhh#...#",
        "#hbh....#",
        "#hhh#.@.#",
        "#####.kk#",
        "#.....kt#",
        "#########",
    ],
    "legend": {
        "#": {"wall": True},
        ".": {},
        "h": {"sector": "Gull house", "arena": "room"},
        "b": {"sector": "Gull house", "arena": "room", "object": "bed"},
        "k": {"sector": "Tin kiosk", "arena": "counter area"},
        "t": {"sector": "Tin kiosk", "arena": "counter area", "object": "till"},
        "@": {"sector": "Tin kiosk", "arena": "counter area", "spawn": "sp-1"},
    },
}


@pytest.mark.django_db
def test_a_grid_becomes_a_town_with_paths() -> None:
    town = town_from_grid(data=GRID)
    assert (town.width, town.height, town.world_name) == (9, 7, "Pebble Row")
    addresses = set(Location.objects.filter(town=town).values_list("address", flat=True))
    assert {
        "Pebble Row:Gull house:room",
        "Pebble Row:Gull house:room:bed",
        "Pebble Row:Tin kiosk:counter area:till",
    } <= addresses
    assert location_anchor(town=town, address="Pebble Row:Gull house:room:bed") == (2, 2)
    walk = path_between_locations(
        town=town,
        from_address="Pebble Row:Gull house:room",
        to_address="Pebble Row:Tin kiosk:counter area",
    )
    assert walk


BAD = [
    ("name", "pebble row!", "name"),
    ("format", "tiled", "format"),
    ("rows.2", "#hbh...#", "rows[2]"),  # one character short
    ("rows.5", "#.....kz#", "rows[5]"),  # not in the legend
    ("rows.2", "#hbh#...#", "rows"),  # the house walled in
    ("rows", ["." * (MAX_SIDE + 1)], "rows[0]"),
    ("legend.k", {"sector": "tin kiosk", "arena": "counter area"}, "legend.t"),  # case
    ("legend.t", {"arena": "counter area", "object": "till"}, "legend.t"),
    ("legend.t", {"sector": "Tin kiosk", "arena": "a:b"}, "legend.t.arena"),
    ("tile_size", 0, "tile_size"),
    ("layers", [], "layers"),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("path", "value", "field"), BAD)
def test_bad_field_is_named_and_nothing_written(path: str, value: Any, field: str) -> None:
    before = Town.objects.count()
    with pytest.raises(TownInvalid) as caught:
        town_from_grid(data=with_field(GRID, path, value))
    assert field in caught.value.errors, caught.value.errors
    assert Town.objects.count() == before


@pytest.mark.django_db
def test_the_shipped_village_is_a_town() -> None:
    from world.towns import town_get_or_import

    town = town_get_or_import("brindle_green")
    assert (town.width, town.height) == (40, 30)
    arenas = Location.objects.filter(town=town, kind="arena").values_list("name", flat=True)
    assert {"cafe", "green", "shop floor", "main room"} <= set(arenas)
