"""Towns from a compact JSON grid (`smallville-town/1`, docs/authoring.md).

`rows` draw the map, one character a tile; `legend` says what each character is: a wall
(`{"wall": true}`), open ground (`{}`), or a place (`sector`, `arena`, and optionally an
`object` or a `spawn` point). `town_from_grid` checks the grid (sizes bounded, every
character in the legend, names unique up to case, every arena reachable from every spawn
point) and builds the same rows as a town in the reference format.
"""

from __future__ import annotations

import json
import re
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from typing import Any, ParamSpec, TypeVar

from django.db import transaction

from .fieldpath import field_path
from .models import Town

FORMAT = "smallville-town/1"
MAX_SIDE = 200
SLUG = re.compile(r"[-a-zA-Z0-9_]{1,100}")
_PLACE_KEYS = ("sector", "arena", "object", "spawn")
P = ParamSpec("P")
T = TypeVar("T")


class TownInvalid(ValueError):
    """A town file (a grid or a Tiled map) breaks its format: `errors` maps field paths to
    messages."""

    def __init__(self, errors: dict[str, list[str]]) -> None:
        super().__init__("; ".join(f"{k}: {' '.join(v)}" for k, v in errors.items()))
        self.errors = errors


def town_invalid(field: str, message: str) -> TownInvalid:
    return TownInvalid({field: [message]})


class Checks:
    """The checks of a town file's independent parts, each run whatever the others found,
    so a bad town reports every field at fault (`done` raises them all)."""

    def __init__(self) -> None:
        self.errors: dict[str, list[str]] = {}

    def add(self, field: str, message: str) -> None:
        self.errors.setdefault(field, []).append(message)

    def run(self, check: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T | None:
        """What `check` returns, or None when it finds a problem (kept)."""
        try:
            return check(*args, **kwargs)
        except TownInvalid as exc:
            for field, messages in exc.errors.items():
                self.errors.setdefault(field, []).extend(messages)
            return None

    def done(self) -> None:
        if self.errors:
            raise TownInvalid(self.errors)


def check_place_name(value: Any, field: str) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > 200 or ":" in value:
        raise town_invalid(field, "a name of 1-200 characters without ':'")
    return value.strip()


def _legend(data: Any) -> dict[str, dict[str, Any]]:
    if not isinstance(data, dict) or not data:
        raise town_invalid("legend", "an object from one character to what it draws")
    checks = Checks()
    legend: dict[str, dict[str, Any]] = {}
    for char, entry in data.items():
        checked = checks.run(_legend_entry, char, entry)
        if checked is not None:
            legend[char] = checked
    checks.done()
    return legend


def _legend_entry(char: str, entry: Any) -> dict[str, Any]:
    field = field_path("legend", char)
    if len(char) != 1 or not isinstance(entry, dict):
        raise town_invalid(field, "a single character mapped to an object")
    unknown = set(entry) - {"wall", *_PLACE_KEYS}
    if unknown:
        raise town_invalid(field, f"unknown keys {sorted(unknown)}")
    if not isinstance(entry.get("wall", False), bool):
        raise town_invalid(f"{field}.wall", "true or false")
    if entry.get("wall") and set(entry) & set(_PLACE_KEYS):
        raise town_invalid(field, "a wall is no place")
    if ("object" in entry or "spawn" in entry) and "arena" not in entry:
        raise town_invalid(field, "an object or spawn point needs its arena")
    if "arena" in entry and "sector" not in entry:
        raise town_invalid(field, "an arena needs its sector")
    if "object" in entry and "spawn" in entry:
        raise town_invalid(field, "one of object and spawn")
    return {
        "wall": entry.get("wall") is True,
        **{k: check_place_name(entry[k], f"{field}.{k}") for k in _PLACE_KEYS if k in entry},
    }


def _rows(data: Any, legend: dict[str, dict[str, Any]] | None) -> list[str]:
    """The rows, each as wide as the first and drawn from the legend (not checked against
    a legend that is itself bad: None)."""
    if not isinstance(data, list) or not 1 <= len(data) <= MAX_SIDE:
        raise town_invalid("rows", f"a list of 1-{MAX_SIDE} strings")
    width = len(data[0]) if isinstance(data[0], str) else 0
    if not 1 <= width <= MAX_SIDE:
        raise town_invalid("rows[0]", f"a string of 1-{MAX_SIDE} characters")
    checks = Checks()
    for number, row in enumerate(data):
        if not isinstance(row, str) or len(row) != width:
            checks.add(f"rows[{number}]", f"every row has {width} characters, as row 0")
            continue
        for column, char in enumerate(row):
            if legend is not None and char not in legend:
                checks.add(f"rows[{number}]", f"{char!r} (column {column}) is not in the legend")
                break
    checks.done()
    return data


# A tile as the checks and layers see it: {"wall": bool, and any of _PLACE_KEYS}.
Cell = dict[str, Any]


def check_names(entries: Iterable[tuple[str, Cell, str]]) -> None:
    """One spelling per place: names that differ only in case would be two places.
    `entries` are (field to name, cell, where it is: said after the message), e.g. a
    legend's characters."""
    spelled: dict[tuple[str, ...], tuple[str, ...]] = {}
    for field, entry, where in entries:
        path = tuple(entry[k] for k in ("sector", "arena") if k in entry)
        for depth in range(1, len(path) + 1):
            key = tuple(p.casefold() for p in path[:depth])
            if spelled.setdefault(key, path[:depth]) != path[:depth]:
                message = f"{':'.join(path[:depth])!r} is spelled another way"
                raise town_invalid(field, f"{message}{where}")


def check_reachable(cells: Sequence[Cell], width: int, field: str) -> None:
    """Every arena reachable from every spawn point (from the first arena's first tile
    when there is none); TownInvalid under `field` otherwise."""
    height = len(cells) // width
    open_ = [not cell["wall"] for cell in cells]
    arenas: dict[tuple[str, str], list[int]] = {}
    spawns: list[int] = []
    for index, entry in enumerate(cells):
        if "arena" in entry:
            arenas.setdefault((entry["sector"], entry["arena"]), []).append(index)
        if "spawn" in entry:
            spawns.append(index)
    if not arenas:
        raise town_invalid(field, "the town needs at least one arena")
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
                raise town_invalid(field, f"{sector}:{arena} cannot be reached from {where}")


def town_layers(cells: Iterable[Cell], world: str) -> dict[str, Any]:
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
    for e in cells:
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


def town_fields(
    *, name: str, world: str, width: int, tile_size: int, cells: Sequence[Cell]
) -> dict[str, Any]:
    """The Town fields of a checked town of `cells` (row-major, `width` a row)."""
    meta = {
        "world_name": world,
        "maze_width": width,
        "maze_height": len(cells) // width,
        "sq_tile_size": tile_size,
        "special_constraint": "",
    }
    return {
        "name": name,
        "world_name": world,
        "width": width,
        "height": len(cells) // width,
        "tile_size": tile_size,
        "meta_source": json.dumps(meta),
        **town_layers(cells, world),
    }


def check_slug(value: Any, field: str) -> str:
    """A town's name: a slug (ASCII letters, digits, _ and -) of up to 100 characters."""
    if not isinstance(value, str) or not SLUG.fullmatch(value):
        raise town_invalid(field, "a slug of 1-100 characters: ASCII letters, digits, _ and -")
    return value


def check_tile_size(value: Any, field: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 8 <= value <= 128:
        raise town_invalid(field, "an integer from 8 to 128")
    return value


def grid_check(data: Any) -> dict[str, Any]:
    """The Town fields of a grid town, or TownInvalid naming every bad field (the places'
    spellings and reach are checked once every field is good)."""
    if not isinstance(data, dict):
        raise town_invalid("non_field_errors", "a town is a JSON object")
    checks = Checks()
    for key in sorted(set(data) - {"format", "name", "world", "tile_size", "rows", "legend"}):
        checks.add(field_path(key), "unknown field")
    if data.get("format", FORMAT) != FORMAT:
        checks.add("format", f"must be {FORMAT!r}")
    name = checks.run(check_slug, data.get("name"), "name")
    world = checks.run(check_place_name, data.get("world"), "world")
    tile_size = checks.run(check_tile_size, data.get("tile_size", 32), "tile_size")
    legend = checks.run(_legend, data.get("legend"))
    rows = checks.run(_rows, data.get("rows"), legend)
    checks.done()
    assert name is not None and world is not None and tile_size is not None
    assert legend is not None and rows is not None
    check_names((field_path("legend", char), entry, "") for char, entry in legend.items())
    cells = [legend[c] for row in rows for c in row]
    check_reachable(cells, len(rows[0]), "rows")
    return town_fields(name=name, world=world, width=len(rows[0]), tile_size=tile_size, cells=cells)


@transaction.atomic
def town_from_grid(*, data: Any) -> Town:
    """A new shipped town from a grid town's data; TownInvalid (nothing written) when bad.
    (A user's town: world.townbuild.town_create.)"""
    from .towns import _build_location_tree  # towns imports this module

    fields = grid_check(data)
    if Town.objects.filter(name__iexact=fields["name"], owner__isnull=True).exists():
        raise town_invalid("name", f"a town called {fields['name']!r} exists already")
    town = Town.objects.create(**fields)
    _build_location_tree(town)
    return town
