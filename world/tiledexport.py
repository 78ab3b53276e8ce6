"""A stored town as a Tiled map (the inverse of world.tiledtown): the five block layers,
one embedded tileset whose tiles carry the block names, and the town's `name` and `world`
as map properties. Open it in Tiled to paint over it, then post it back (docs/authoring.md,
"Bringing a map from Tiled")."""

from __future__ import annotations

from typing import Any

from .models import Town

_WALL_GID = 1  # the one tile of the walls tileset


def _names(town: Town, stem: str, depth: int) -> dict[int, str]:
    """Block id -> the name at `depth` of its legend row (id, world, sector, arena, ...)."""
    return {int(row[0]): row[depth].strip() for row in town.legends.get(stem, [])}


def town_to_tiled(*, town: Town) -> dict[str, Any]:
    """The Tiled map (`.tmj` JSON) of `town`, layers row-major as CSV arrays."""
    size = town.width * town.height
    names: list[str] = []  # the blocks tileset's tiles, in id order
    ids: dict[str, int] = {}

    def gid(name: str | None) -> int:
        if not name:
            return 0
        if name not in ids:
            ids[name] = len(names)
            names.append(name)
        return 2 + ids[name]

    sources = (
        ("Sector Blocks", town.sector_layer, _names(town, "sector", 2)),
        ("Arena Blocks", town.arena_layer, _names(town, "arena", 3)),
        ("Object Interaction Blocks", town.game_object_layer, _names(town, "game_object", 3)),
        ("Spawning Blocks", town.spawning_layer, _names(town, "spawning_location", 4)),
    )
    layers = [_layer(1, "Collisions", town, [_WALL_GID if v else 0 for v in town.collision])]
    for number, (name, values, legend) in enumerate(sources, start=2):
        layers.append(_layer(number, name, town, [gid(legend.get(v)) for v in values[:size]]))
    return {
        "type": "map",
        "version": "1.10",
        "tiledversion": "1.10.2",
        "orientation": "orthogonal",
        "renderorder": "right-down",
        "infinite": False,
        "width": town.width,
        "height": town.height,
        "tilewidth": town.tile_size,
        "tileheight": town.tile_size,
        "nextlayerid": len(layers) + 1,
        "nextobjectid": 1,
        "properties": [
            {"name": "name", "type": "string", "value": town.name},
            {"name": "world", "type": "string", "value": town.world_name},
        ],
        "layers": layers,
        "tilesets": [
            {"firstgid": 1, "name": "walls", "tilecount": 1, "tiles": []},
            {
                "firstgid": 2,
                "name": "blocks",
                "tilecount": len(names),
                "tiles": [
                    {"id": i, "properties": [{"name": "name", "type": "string", "value": n}]}
                    for i, n in enumerate(names)
                ],
            },
        ],
    }


def _layer(number: int, name: str, town: Town, data: list[int]) -> dict[str, Any]:
    return {
        "id": number,
        "type": "tilelayer",
        "name": name,
        "width": town.width,
        "height": town.height,
        "x": 0,
        "y": 0,
        "opacity": 1,
        "visible": True,
        "data": data,
    }
