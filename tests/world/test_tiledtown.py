"""Towns from Tiled maps: a map drawn here (made-up places) becomes a town whose places and
walks are those of its drawing; each bad field of a map is named, and nothing is written."""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command

from tests.tiled import LEGEND, ROWS, WORLD, block_layer, tiled_map
from world.gridtown import TownInvalid, grid_check, town_from_grid
from world.models import Location, Town
from world.paths import path_between_locations
from world.tiledexport import town_to_tiled
from world.tiledtown import tiled_check
from world.townbuild import town_check, town_create


@pytest.mark.django_db
def test_a_tiled_map_becomes_a_town_with_its_places_and_walks(user: User) -> None:
    town = town_create(owner=user, data=tiled_map())
    assert (town.name, town.world_name, town.width, town.height) == ("hollow_end", WORLD, 12, 9)
    assert town.owner == user
    addresses = set(Location.objects.filter(town=town).values_list("address", flat=True))
    assert {
        f"{WORLD}:Fenn cottage:parlour:settle",
        f"{WORLD}:Crumb bakery:bakehouse:oven",
        f"{WORLD}:Hollow green:lawn:oak tree",
    } <= addresses
    walk = path_between_locations(
        town=town,
        from_address=f"{WORLD}:Fenn cottage:parlour",
        to_address=f"{WORLD}:Crumb bakery:bakehouse:oven",
    )
    assert len(walk) > 5 and walk[-1] == (8, 2)  # the oven's tile


@pytest.mark.django_db
def test_a_map_gives_the_same_layers_as_the_grid_it_was_drawn_from() -> None:
    grid = {"name": "hollow_end", "world": WORLD, "rows": ROWS, "legend": LEGEND}
    assert tiled_check(tiled_map()) == town_check(tiled_map()) == grid_check(grid)


def _edit(path: str, value: Any) -> dict[str, Any]:
    """The map with one field changed; `@Layer Name.key` is a field of a block layer."""
    data = copy.deepcopy(tiled_map())
    if path.startswith("@"):
        name, key = path[1:].rsplit(".", 1)
        block_layer(data, name)[key] = value
        return data
    here: Any = data
    *parents, last = path.split(".")
    for part in parents:
        here = here[int(part)] if isinstance(here, list) else here[part]
    here[int(last) if isinstance(here, list) else last] = value
    return data


ARENAS = "layers[2].layers[1]"  # the Arena Blocks layer, inside the Blocks group
SECTORS = "layers[2].layers[0]"
# Row 4 holds the houses' doors: all wall, the houses cannot be reached from the green.
_walled = [1 if c == "#" or r == 4 else 0 for r, row in enumerate(ROWS) for c in row]
BAD = [
    ("type", "world", "type"),
    ("orientation", "isometric", "orientation"),
    ("infinite", True, "infinite"),
    ("width", 201, "width"),
    ("height", "9", "height"),
    ("tilewidth", 7, "tilewidth"),
    ("tileheight", 16, "tileheight"),
    ("properties", [], "properties.name"),
    ("properties.0.value", "hollow end!", "properties.name"),
    ("properties.1.value", "a:b", "properties.world"),
    ("tilesets.1.tiles.0.properties", [], f"{SECTORS}.data"),  # no name property
    ("tilesets.1.firstgid", 0, "tilesets[1].firstgid"),
    ("@Arena Blocks.width", 11, f"{ARENAS}.width"),  # sizes disagree
    ("@Arena Blocks.data", [0] * 107, f"{ARENAS}.data"),
    ("@Arena Blocks.data", [999] * 108, f"{ARENAS}.data"),  # a gid in no tileset
    ("@Arena Blocks.data", ["1"] * 108, f"{ARENAS}.data"),
    ("@Arena Blocks.encoding", "base64", f"{ARENAS}.encoding"),
    ("@Arena Blocks.name", "Arenas", "layers"),  # no Arena Blocks layer
    ("@Spawning Blocks.name", "ARENA BLOCKS", "layers[2].layers[3].name"),  # two of them
    ("@Collisions.data", _walled, "layers[1].data"),  # the houses walled off the green
]


@pytest.mark.django_db
@pytest.mark.parametrize(("path", "value", "field"), BAD)
def test_bad_field_of_a_map_is_named_and_nothing_written(
    user: User, path: str, value: Any, field: str
) -> None:
    before = (Town.objects.count(), Location.objects.count())
    with pytest.raises(TownInvalid) as caught:
        town_create(owner=user, data=_edit(path, value))
    assert field in caught.value.errors, caught.value.errors
    assert (Town.objects.count(), Location.objects.count()) == before


@pytest.mark.django_db
def test_a_place_spelled_two_ways_up_to_case_is_refused(user: User) -> None:
    data = tiled_map()
    tiles = data["tilesets"][1]["tiles"]
    tiles.append({"id": len(tiles), "properties": [{"name": "name", "value": "fenn COTTAGE"}]})
    data["tilesets"][1]["tilecount"] += 1
    data["tilesets"][2]["firstgid"] += 1  # the art's tileset after it
    sectors = block_layer(data, "sector blocks")["data"]
    sectors[1 * 12 + 1] = 2 + len(tiles) - 1  # one tile of Fenn cottage spelled otherwise
    with pytest.raises(TownInvalid) as caught:
        town_create(owner=user, data=data)
    assert "spelled another way" in str(caught.value)
    assert not Town.objects.filter(name="hollow_end").exists()


@pytest.mark.django_db
def test_an_arena_with_no_sector_under_it_is_refused(user: User) -> None:
    data = tiled_map()
    block_layer(data, "sector blocks")["data"][1 * 12 + 1] = 0
    with pytest.raises(TownInvalid) as caught:
        town_create(owner=user, data=data)
    assert caught.value.errors == {
        f"{ARENAS}.data": ["'parlour' at column 1, row 1 has no sector under it"]
    }


@pytest.mark.django_db
def test_a_grid_town_exported_to_tiled_comes_back_the_same(user: User, tmp_path: Path) -> None:
    grid = {"name": "hollow_end", "world": WORLD, "rows": ROWS, "legend": LEGEND}
    town = town_from_grid(data=grid)
    target = tmp_path / "hollow_end.tmj"
    call_command("export_town", "hollow_end", str(target), "--tiled")
    exported = json.loads(target.read_text())
    assert exported == town_to_tiled(town=town)
    assert tiled_check(exported) == grid_check(grid)

    # Imported back as a user's town under another name: the same places, tile for tile.
    exported["properties"][0]["value"] = "hollow_end_again"
    target.write_text(json.dumps(exported))
    call_command("import_town", str(target), "--owner", user.username, stdout=io.StringIO())
    again = Town.objects.get(name="hollow_end_again")
    assert again.owner == user

    def places(of: Town) -> list[tuple[str, list[int]]]:
        rows = Location.objects.filter(town=of).order_by("address")
        return list(rows.values_list("address", "tiles"))

    assert places(again) == places(town)
