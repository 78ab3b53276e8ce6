"""Towns from a compact JSON grid (`smallville-town/1`, docs/authoring.md).

`rows` draw the map, one character a tile; `legend` says what each character is: a wall
(`{"wall": true}`), open ground (`{}`), or a place (`sector`, `arena`, and optionally an
`object` or a `spawn` point). `town_from_grid` checks the grid (sizes bounded, every
character in the legend, names unique up to case, every arena reachable from every spawn
point) and builds the same rows as a town in the reference format.
"""

from __future__ import annotations

import json
from collections import deque
from typing import Any

from django.db import transaction

from .models import Town

FORMAT = "smallville-town/1"
MAX_SIDE = 200
_PLACE_KEYS = ("sector", "arena", "object", "spawn")


class TownInvalid(ValueError):
    """A grid town breaks its format: `errors` maps field paths to messages."""

    def __init__(self, errors: dict[str, list[str]]) -> None:
        super().__init__("; ".join(f"{k}: {' '.join(v)}" for k, v in errors.items()))
        self.errors = errors


def _fail(field: str, message: str) -> TownInvalid:
    return TownInvalid({field: [message]})


def _name(value: Any, field: str) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > 200 or ":" in value:
        raise _fail(field, "a name of 1-200 characters without ':'")
    return value.strip()


def _legend(data: Any) -> dict[str, dict[str, Any]]:
    if not isinstance(data, dict) or not data:
        raise _fail("legend", "an object from one character to what it draws")
    legend: dict[str, dict[str, Any]] = {}
    for char, entry in data.items():
        field = f"legend.{char}"
        if len(char) != 1 or not isinstance(entry, dict):
            raise _fail(field, "a single character mapped to an object")
        unknown = set(entry) - {"wall", *_PLACE_KEYS}
        if unknown:
            raise _fail(field, f"unknown keys {sorted(unknown)}")
        if entry.get("wall") and set(entry) & set(_PLACE_KEYS):
            raise _fail(field, "a wall is no place")
        if ("object" in entry or "spawn" in entry) and "arena" not in entry:
            raise _fail(field, "an object or spawn point needs its arena")
        if "arena" in entry and "sector" not in entry:
            raise _fail(field, "an arena needs its sector")
        if "object" in entry and "spawn" in entry:
            raise _fail(field, "one of object and spawn")
        legend[char] = {
            "wall": entry.get("wall") is True,
            **{key: _name(entry[key], f"{field}.{key}") for key in _PLACE_KEYS if key in entry},
        }
    return legend


def _rows(data: Any, legend: dict[str, dict[str, Any]]) -> list[str]:
    if not isinstance(data, list) or not 1 <= len(data) <= MAX_SIDE:
        raise _fail("rows", f"a list of 1-{MAX_SIDE} strings")
    width = len(data[0]) if isinstance(data[0], str) else 0
    if not 1 <= width <= MAX_SIDE:
        raise _fail("rows.0", f"a string of 1-{MAX_SIDE} characters")
    for number, row in enumerate(data):
        if not isinstance(row, str) or len(row) != width:
            raise _fail(f"rows.{number}", f"every row has {width} characters, as row 0")
        for column, char in enumerate(row):
            if char not in legend:
                raise _fail(f"rows.{number}", f"{char!r} (column {column}) is not in the legend")
    return data


def _check_names(legend: dict[str, dict[str, Any]]) -> None:
    """One spelling per place: names that differ only in case would be two places."""
    spelled: dict[tuple[str, ...], tuple[str, ...]] = {}
    for char, entry in legend.items():
        path = tuple(entry[k] for k in ("sector", "arena") if k in entry)
        for depth in range(1, len(path) + 1):
            key = tuple(p.casefold() for p in path[:depth])
            if spelled.setdefault(key, path[:depth]) != path[:depth]:
                raise _fail(f"legend.{char}", f"{':'.join(path[:depth])!r} is spelled another way")


def _check_reachable(rows: list[str], legend: dict[str, dict[str, Any]]) -> None:
    width, height = len(rows[0]), len(rows)
    open_ = [not legend[c]["wall"] for row in rows for c in row]
    arenas: dict[tuple[str, str], list[int]] = {}
    spawns: list[int] = []
    for index, char in enumerate(c for row in rows for c in row):
        entry = legend[char]
        if "arena" in entry:
            arenas.setdefault((entry["sector"], entry["arena"]), []).append(index)
        if "spawn" in entry:
            spawns.append(index)
    if not arenas:
        raise _fail("legend", "the town needs at least one arena")
    for index in spawns or [next(iter(arenas.values()))[0]]:
        seen = {index}
        queue = deque([index])
        while queue:
            here = queue.popleft()
            x, y = here % width, here // width
            for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                there = ny * width + nx
                if 0 <= nx < width and 0 <= ny < height and open_[there] and there not in seen:
                    seen.add(there)
                    queue.append(there)
        for (sector, arena), tiles in sorted(arenas.items()):
            if seen.isdisjoint(tiles):
                where = f"row {index // width}, column {index % width}"
                raise _fail("rows", f"{sector}:{arena} cannot be reached from {where}")


def _layers(rows: list[str], legend: dict[str, dict[str, Any]], world: str) -> dict[str, Any]:
    """The reference format's layers and legends, one block id per distinct place."""
    blocks: dict[tuple[str, ...], int] = {("world", world): 1}
    legends: dict[str, list[list[str]]] = {"world": [["1", world]]}
    for stem in ("sector", "arena", "game_object", "spawning_location"):
        legends[stem] = []

    def block(stem: str, cells: tuple[str, ...]) -> int:
        key = (stem, *cells)
        if key not in blocks:
            blocks[key] = len(blocks) + 1
            legends[stem].append([str(blocks[key]), world, *cells])
        return blocks[key]

    layers: dict[str, list[int]] = {
        f: [] for f in ("collision", "sector_layer", "arena_layer", "game_object_layer")
    }
    layers["spawning_layer"] = []
    for char in (c for row in rows for c in row):
        e = legend[char]
        layers["collision"].append(1 if e["wall"] else 0)
        sector = block("sector", (e["sector"],)) if "sector" in e else 0
        arena = block("arena", (e["sector"], e["arena"])) if "arena" in e else 0
        thing = block("game_object", ("<all>", e["object"])) if "object" in e else 0
        spawn = (
            block("spawning_location", (e["sector"], e["arena"], e["spawn"])) if "spawn" in e else 0
        )
        layers["sector_layer"].append(sector)
        layers["arena_layer"].append(arena)
        layers["game_object_layer"].append(thing)
        layers["spawning_layer"].append(spawn)
    return {**layers, "legends": legends}


def grid_check(data: Any) -> dict[str, Any]:
    """The Town fields of a grid town, or TownInvalid naming the first bad field."""
    if not isinstance(data, dict):
        raise _fail("non_field_errors", "a town is a JSON object")
    unknown = set(data) - {"format", "name", "world", "tile_size", "rows", "legend"}
    if unknown:
        raise _fail(sorted(unknown)[0], "unknown field")
    if data.get("format", FORMAT) != FORMAT:
        raise _fail("format", f"must be {FORMAT!r}")
    name = data.get("name")
    if not isinstance(name, str) or not name.replace("_", "").replace("-", "").isalnum():
        raise _fail("name", "a slug: letters, digits, _ and -")
    if len(name) > 100:
        raise _fail("name", "at most 100 characters")
    world = _name(data.get("world"), "world")
    tile_size = data.get("tile_size", 32)
    if not isinstance(tile_size, int) or isinstance(tile_size, bool) or not 8 <= tile_size <= 128:
        raise _fail("tile_size", "an integer from 8 to 128")
    legend = _legend(data.get("legend"))
    rows = _rows(data.get("rows"), legend)
    _check_names(legend)
    _check_reachable(rows, legend)
    meta = {
        "world_name": world,
        "maze_width": len(rows[0]),
        "maze_height": len(rows),
        "sq_tile_size": tile_size,
        "special_constraint": "",
    }
    return {
        "name": name,
        "world_name": world,
        "width": len(rows[0]),
        "height": len(rows),
        "tile_size": tile_size,
        "meta_source": json.dumps(meta),
        **_layers(rows, legend, world),
    }


@transaction.atomic
def town_from_grid(*, data: Any) -> Town:
    """A new town from a grid town's data; TownInvalid (nothing written) when bad."""
    from .towns import _build_location_tree  # towns imports this module

    fields = grid_check(data)
    if Town.objects.filter(name=fields["name"]).exists():
        raise _fail("name", f"a town called {fields['name']!r} exists already")
    town = Town.objects.create(**fields)
    _build_location_tree(town)
    return town
