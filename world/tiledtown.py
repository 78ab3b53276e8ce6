"""Towns from a Tiled map (JSON: `.tmj`, or `.json` from older Tiled), as the Ville was drawn.

A map is orthogonal, of fixed size, its tile layers' `data` plain arrays of gids (Tiled:
Map > Map Properties > Tile Layer Format: CSV). Five tile layers, named as the reference
implementation's (matched without case, also inside group layers; other layers, the art,
are ignored):

- "Collisions": any tile is a wall;
- "Sector Blocks", "Arena Blocks": a tile's sector and arena;
- "Object Interaction Blocks": an object on its tile (optional);
- "Spawning Blocks": a spawn point (optional).

A block's name is the custom property `name` of its tile in an embedded tileset (Tiled:
select the tile in the tileset, Custom Properties, add `name`). An arena belongs to the
sector drawn under it, an object or spawn point to the arena under it, so one "kitchen"
tile serves every house. The town's own `name` (a slug) and `world` are custom properties
of the map. The tiles then are checked as a grid town's (world.gridtown): sizes bounded,
one spelling per place up to case, every arena reachable from every spawn point.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .gridtown import (
    MAX_SIDE,
    Cell,
    Checks,
    check_names,
    check_place_name,
    check_reachable,
    check_slug,
    check_tile_size,
    town_fields,
    town_invalid,
)

COLLISIONS, SECTORS, ARENAS, OBJECTS, SPAWNS = (
    "collisions",
    "sector blocks",
    "arena blocks",
    "object interaction blocks",
    "spawning blocks",
)
LAYERS = (COLLISIONS, SECTORS, ARENAS, OBJECTS, SPAWNS)
REQUIRED = (COLLISIONS, SECTORS, ARENAS)
# A layer's gids keep Tiled's flip and rotation flags in their top four bits.
GID_MASK = 0x0FFFFFFF
MAX_TILESETS = 64
MAX_LAYERS = 256  # every layer of the map, the art's included


def is_tiled(data: Any) -> bool:
    """Whether `data` says it is a Tiled map (its `type`)."""
    return isinstance(data, dict) and data.get("type") == "map"


def _int(data: dict[str, Any], key: str, field: str, low: int, high: int) -> int:
    value = data.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise town_invalid(field, f"an integer from {low} to {high}")
    return value


def _properties(data: Any, field: str) -> dict[str, Any]:
    """Tiled's custom properties ([{name, type, value}, ...]) as a dict."""
    if data is None:
        return {}
    if not isinstance(data, list):
        raise town_invalid(field, "a list of {name, type, value}")
    found: dict[str, Any] = {}
    for number, item in enumerate(data):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise town_invalid(f"{field}[{number}]", "a property: {name, type, value}")
        found[item["name"]] = item.get("value")
    return found


def _tile_layers(layers: Any, field: str, depth: int = 0) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every tile layer with its field path, group layers walked into."""
    if not isinstance(layers, list) or len(layers) > MAX_LAYERS:
        raise town_invalid(field, f"a list of at most {MAX_LAYERS} layers")
    for number, layer in enumerate(layers):
        at = f"{field}[{number}]"
        if not isinstance(layer, dict):
            raise town_invalid(at, "a layer is an object")
        if layer.get("type") == "group" and depth < 8:
            yield from _tile_layers(layer.get("layers", []), f"{at}.layers", depth + 1)
        elif layer.get("type") == "tilelayer":
            yield at, layer


Layers = dict[str, tuple[str, list[int]]]  # lower-case name -> (field path, gids)


def _block_layers(data: dict[str, Any], width: int, height: int) -> Layers:
    """The five block layers by their lower-case name: (field path, gids)."""
    found: Layers = {}
    for at, layer in _tile_layers(data.get("layers"), "layers"):
        name = layer.get("name")
        key = name.strip().casefold() if isinstance(name, str) else ""
        if key not in LAYERS:
            continue
        if key in found:
            raise town_invalid(f"{at}.name", f"a second layer named {name!r}")
        for side, size in (("width", width), ("height", height)):
            if layer.get(side, size) != size:
                raise town_invalid(f"{at}.{side}", f"{size}, as the map's {side}")
        if layer.get("encoding", "csv") != "csv" or layer.get("compression"):
            raise town_invalid(f"{at}.encoding", "save the layer as CSV (Tile Layer Format)")
        gids = layer.get("data")
        if not isinstance(gids, list) or len(gids) != width * height:
            raise town_invalid(f"{at}.data", f"a list of {width * height} gids (width x height)")
        for gid in gids:
            if not isinstance(gid, int) or isinstance(gid, bool) or not 0 <= gid < 2**32:
                raise town_invalid(f"{at}.data", f"{gid!r:.40} is no gid")
        found[key] = (f"{at}.data", [gid & GID_MASK for gid in gids])
    for key in REQUIRED:
        if key not in found:
            raise town_invalid("layers", f"no tile layer named {key.title()!r}")
    return found


class _Names:
    """A gid's block name: the `name` property of its tile in an embedded tileset."""

    def __init__(self, tilesets: Any) -> None:
        if not isinstance(tilesets, list) or len(tilesets) > MAX_TILESETS:
            raise town_invalid("tilesets", f"a list of at most {MAX_TILESETS} tilesets")
        self.sets: list[tuple[int, int, str, dict[int, Any]]] = []
        for number, tileset in enumerate(tilesets):
            field = f"tilesets[{number}]"
            if not isinstance(tileset, dict):
                raise town_invalid(field, "a tileset is an object")
            first = _int(tileset, "firstgid", f"{field}.firstgid", 1, GID_MASK)
            listed = tileset.get("tiles") or []
            if not isinstance(listed, list):
                raise town_invalid(f"{field}.tiles", "a list of tiles")
            tiles: dict[int, Any] = {}
            for index, tile in enumerate(listed):
                at = f"{field}.tiles[{index}]"
                if not isinstance(tile, dict):
                    raise town_invalid(at, "a tile is an object")
                tile_id = _int(tile, "id", f"{at}.id", 0, GID_MASK)
                tiles[tile_id] = _properties(tile.get("properties"), f"{at}.properties")
            self.sets.append((first, number, field, tiles))
        self.sets.sort(reverse=True)

    def name(self, gid: int, field: str, tile: int, width: int) -> str:
        where = f"gid {gid} at column {tile % width}, row {tile // width}"
        for first, _, at, tiles in self.sets:
            if gid >= first:
                properties = tiles.get(gid - first)
                if properties is None or "name" not in properties:
                    raise town_invalid(
                        field,
                        f"{where}: tile {gid - first} of {at} has no property 'name' "
                        "(an external tileset's tiles cannot be read: embed it)",
                    )
                return check_place_name(properties["name"], field)
        raise town_invalid(field, f"{where} is in no tileset")


def _cells(
    layers: Layers, names: _Names, width: int
) -> tuple[list[Cell], dict[tuple[Any, ...], tuple[Cell, int]]]:
    """Each tile as a grid town's cell, and each distinct cell with its first tile."""
    size = len(layers[COLLISIONS][1])
    cells: list[Cell] = []
    first: dict[tuple[Any, ...], tuple[Cell, int]] = {}
    cache: dict[tuple[str, int], str] = {}

    def name(key: str, tile: int) -> str | None:
        field, gids = layers[key]
        gid = gids[tile]
        if not gid:
            return None
        if (key, gid) not in cache:
            cache[(key, gid)] = names.name(gid, field, tile, width)
        return cache[(key, gid)]

    for tile in range(size):
        cell: Cell = {"wall": bool(layers[COLLISIONS][1][tile])}
        for key, part, needs in (
            (SECTORS, "sector", None),
            (ARENAS, "arena", "sector"),
            (OBJECTS, "object", "arena"),
            (SPAWNS, "spawn", "arena"),
        ):
            value = name(key, tile) if key in layers else None
            if value is None:
                continue
            if needs is not None and needs not in cell:
                where = f"column {tile % width}, row {tile // width}"
                raise town_invalid(layers[key][0], f"{value!r} at {where} has no {needs} under it")
            cell[part] = value
        if "object" in cell and "spawn" in cell:
            where = f"column {tile % width}, row {tile // width}"
            raise town_invalid(layers[SPAWNS][0], f"{where} is both an object and a spawn point")
        cells.append(cell)
        first.setdefault(tuple(sorted(cell.items())), (cell, tile))
    return cells, first


def tiled_check(data: Any) -> dict[str, Any]:
    """The Town fields of a Tiled map, or TownInvalid naming every bad field of the map's
    own (its layers and tilesets are read once those are good)."""
    if not is_tiled(data):
        raise town_invalid("type", "a Tiled map has type 'map'")
    checks = Checks()
    if data.get("orientation", "orthogonal") != "orthogonal":
        checks.add("orientation", "only orthogonal maps")
    if data.get("infinite", False) is not False:
        checks.add("infinite", "a map of fixed size (untick Infinite)")
    width = checks.run(_int, data, "width", "width", 1, MAX_SIDE)
    height = checks.run(_int, data, "height", "height", 1, MAX_SIDE)
    tile_size = checks.run(check_tile_size, data.get("tilewidth"), "tilewidth")
    if tile_size is not None and data.get("tileheight") != tile_size:
        checks.add("tileheight", f"{tile_size}, as tilewidth: tiles are square")
    properties = checks.run(_properties, data.get("properties"), "properties")
    name = world = None
    if properties is not None:
        name = checks.run(check_slug, properties.get("name"), "properties.name")
        world = checks.run(check_place_name, properties.get("world"), "properties.world")
    checks.done()
    assert width is not None and height is not None and tile_size is not None
    assert name is not None and world is not None
    names = _Names(data.get("tilesets"))
    layers = _block_layers(data, width, height)
    cells, first = _cells(layers, names, width)
    # One spelling per place, each named at the first tile drawn so (its arena's layer, or
    # its sector's for a tile with no arena).
    check_names(
        (
            layers[ARENAS if "arena" in cell else SECTORS][0],
            cell,
            f" (column {tile % width}, row {tile // width})",
        )
        for cell, tile in first.values()
    )
    check_reachable(cells, width, layers[COLLISIONS][0])
    return town_fields(name=name, world=world, width=width, tile_size=tile_size, cells=cells)
