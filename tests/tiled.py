"""Tiled maps written in tests: a small drawing becomes a `.tmj` map as Tiled saves it (an
art layer, the block layers in a group, a tileset of walls and one of named blocks)."""

from __future__ import annotations

from typing import Any

# A made-up hamlet: two cottages, a bakery, a green; `@` spawn points.
ROWS = [
    "############",
    "#hhhh#bbbbb#",
    "#hhBh#bbObb#",
    "#hhhh#bbbbb#",
    "##.####.####",
    "#..........#",
    "#.gggg@gggg#",
    "#.gggggggTg#",
    "############",
]
LEGEND: dict[str, dict[str, Any]] = {
    "#": {"wall": True},
    ".": {},
    "h": {"sector": "Fenn cottage", "arena": "parlour"},
    "B": {"sector": "Fenn cottage", "arena": "parlour", "object": "settle"},
    "b": {"sector": "Crumb bakery", "arena": "bakehouse"},
    "O": {"sector": "Crumb bakery", "arena": "bakehouse", "object": "oven"},
    "g": {"sector": "Hollow green", "arena": "lawn"},
    "T": {"sector": "Hollow green", "arena": "lawn", "object": "oak tree"},
    "@": {"sector": "Hollow green", "arena": "lawn", "spawn": "gate"},
}
WORLD = "Hollow End"
FLIPPED = 0x80000000  # Tiled's horizontal-flip flag, set on a gid of the drawing


def _property(name: str, value: Any) -> dict[str, Any]:
    return {"name": name, "type": "string", "value": value}


def tiled_map(
    rows: list[str] | None = None,
    legend: dict[str, dict[str, Any]] | None = None,
    *,
    name: str = "hollow_end",
    world: str = WORLD,
) -> dict[str, Any]:
    """The map of `rows` drawn with `legend` (a grid town's), as Tiled writes it."""
    rows = rows or ROWS
    legend = legend or LEGEND
    width, height = len(rows[0]), len(rows)
    names: list[str] = []  # the blocks tileset's tiles, in id order

    def gid(block: str | None) -> int:
        if block is None:
            return 0
        if block not in names:
            names.append(block)
        return 2 + names.index(block)  # the walls tileset has gid 1

    layers: dict[str, list[int]] = {
        key: [] for key in ("Collisions", "sector", "arena", "object", "spawn")
    }
    for row in rows:
        for char in row:
            entry = legend[char]
            layers["Collisions"].append(1 if entry.get("wall") else 0)
            for key in ("sector", "arena", "object", "spawn"):
                layers[key].append(gid(entry.get(key)))
    layers["arena"] = [g | FLIPPED if g else 0 for g in layers["arena"]]  # flags are ignored

    def tile_layer(layer_name: str, data: list[int], number: int) -> dict[str, Any]:
        return {
            "id": number,
            "type": "tilelayer",
            "name": layer_name,
            "width": width,
            "height": height,
            "x": 0,
            "y": 0,
            "opacity": 1,
            "visible": True,
            "data": data,
        }

    blocks = [
        tile_layer("sector blocks", layers["sector"], 3),  # any case
        tile_layer("Arena Blocks", layers["arena"], 4),
        tile_layer("Object Interaction Blocks", layers["object"], 5),
        tile_layer("Spawning Blocks", layers["spawn"], 6),
    ]
    return {
        "type": "map",
        "version": "1.10",
        "tiledversion": "1.10.2",
        "orientation": "orthogonal",
        "renderorder": "right-down",
        "infinite": False,
        "width": width,
        "height": height,
        "tilewidth": 32,
        "tileheight": 32,
        "nextlayerid": 8,
        "nextobjectid": 1,
        "properties": [_property("name", name), _property("world", world)],
        "layers": [
            tile_layer("Ground art", [7] * (width * height), 1),  # the art: ignored
            tile_layer("Collisions", layers["Collisions"], 2),
            {"id": 7, "type": "group", "name": "Blocks", "layers": blocks},
        ],
        "tilesets": [
            {"firstgid": 1, "name": "walls", "tilecount": 1, "tiles": []},
            {
                "firstgid": 2,
                "name": "blocks",
                "tilecount": len(names),
                "tiles": [
                    {"id": number, "properties": [_property("name", block)]}
                    for number, block in enumerate(names)
                ],
            },
            {"firstgid": 2 + len(names), "source": "art.tsx"},  # external: art only
        ],
    }


def barn_map(width: int, name: str = "long_barn") -> dict[str, Any]:
    """A square barn of `width` tiles a side, its loft along the top: a large map (150 a
    side is over 256 KiB of JSON) of one arena."""
    rows = ["#" * width] + ["#" + "." * (width - 2) + "#"] * (width - 2) + ["#" * width]
    rows[1] = "#" + "k" * (width - 2) + "#"
    legend: dict[str, dict[str, Any]] = {
        "#": {"wall": True},
        ".": {},
        "k": {"sector": "Long barn", "arena": "loft"},
    }
    return tiled_map(rows, legend, name=name, world="Long Barn")


def block_layer(data: dict[str, Any], name: str) -> dict[str, Any]:
    """The block layer `name` of a map made by `tiled_map`."""
    for layer in [*data["layers"], *data["layers"][2]["layers"]]:
        if layer.get("name") == name:
            return layer
    raise KeyError(name)
