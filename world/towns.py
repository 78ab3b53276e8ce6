"""Reading and writing towns in the reference implementation's maze format.

A town folder holds `matrix/maze_meta_info.json`, `matrix/maze/<layer>_maze.csv`
(one row of `width*height` ints joined by ", ") and `matrix/special_blocks/<layer>_blocks.csv`
(legends: `id, world[, sector[, arena[, object]]]`). Legend cells are kept as read, so an
export writes back the same bytes; names in addresses are stripped of stray spaces.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from django.db import connection, transaction

from .addresses import Address
from .gridtown import town_from_grid
from .models import Location, LocationKind, Town

DATA_DIR = Path(__file__).resolve().parent / "data" / "smallville"
GRID_DIR = Path(__file__).resolve().parent / "data" / "towns"  # shipped grid towns, <name>.json
THE_VILLE = "the_ville"

# Town field -> maze file stem; legend files use the same stems with _blocks.
LAYERS = {
    "collision": "collision",
    "sector_layer": "sector",
    "arena_layer": "arena",
    "game_object_layer": "game_object",
    "spawning_layer": "spawning_location",
}
LEGENDS = ("world", "sector", "arena", "game_object", "spawning_location")
# Cells a legend row needs: id, world, then sector, arena, object/spawn point as the layer goes.
LEGEND_CELLS = {"world": 2, "sector": 3, "arena": 4, "game_object": 4, "spawning_location": 5}


class TownFormatError(ValueError):
    """The folder is not a town in the reference format; the message says what is wrong."""


def _read_layer(path: Path, size: int) -> list[int]:
    if not path.exists():
        raise TownFormatError(f"missing maze file {path}")
    try:
        values = [int(cell) for cell in path.read_text().split(",")]
    except ValueError as exc:
        raise TownFormatError(f"{path}: not a comma-separated list of ints ({exc})") from exc
    if len(values) != size:
        raise TownFormatError(f"{path}: {len(values)} tiles, expected {size}")
    return values


def _read_legend(path: Path, minimum: int) -> list[list[str]]:
    if not path.exists():
        raise TownFormatError(f"missing legend file {path}")
    rows = [line.split(", ") for line in path.read_text().split("\n") if line]
    for number, row in enumerate(rows, start=1):
        if len(row) < minimum or not row[0].strip().isdigit():
            raise TownFormatError(
                f"{path}, row {number}: expected a block id and {minimum - 1} names, got {row}"
            )
    return rows


def _clean(cell: str) -> str:
    return cell.strip()


@transaction.atomic
def town_import(*, source: Path, name: str) -> Town:
    """Create (or replace) the town `name` from a folder in the reference format."""
    matrix = source / "matrix"
    meta_path = matrix / "maze_meta_info.json"
    if not meta_path.exists():
        raise TownFormatError(f"{source} has no matrix/maze_meta_info.json")
    meta_source = meta_path.read_text()
    try:
        meta = json.loads(meta_source)
        width, height = int(meta["maze_width"]), int(meta["maze_height"])
    except (ValueError, KeyError, TypeError) as exc:
        raise TownFormatError(
            f"{meta_path}: expected JSON with integer maze_width and maze_height ({exc!r})"
        ) from exc
    layers = {
        field: _read_layer(matrix / "maze" / f"{stem}_maze.csv", width * height)
        for field, stem in LAYERS.items()
    }
    legends = {
        stem: _read_legend(matrix / "special_blocks" / f"{stem}_blocks.csv", LEGEND_CELLS[stem])
        for stem in LEGENDS
    }
    if not legends["world"]:
        raise TownFormatError(f"{source}: world_blocks.csv names no world")
    world_name = _clean(legends["world"][0][1])

    Town.objects.filter(name__iexact=name, owner__isnull=True).delete()
    town = Town.objects.create(
        name=name,
        world_name=world_name,
        width=width,
        height=height,
        tile_size=int(meta.get("sq_tile_size", 32)),
        meta_source=meta_source,
        legends=legends,
        **layers,
    )
    _build_location_tree(town)
    return town


def _tiles_by_block(layer: list[int]) -> dict[int, list[int]]:
    tiles: dict[int, list[int]] = defaultdict(list)
    for index, block in enumerate(layer):
        if block:
            tiles[block].append(index)
    return tiles


def _build_location_tree(town: Town) -> None:
    """World > sector > arena > object, each with the tiles its layer marks."""
    world = Location.objects.create(
        town=town,
        kind=LocationKind.WORLD,
        name=town.world_name,
        address=town.world_name,
        tiles=list(range(town.width * town.height)),
    )
    sector_tiles = _tiles_by_block(town.sector_layer)
    arena_tiles = _tiles_by_block(town.arena_layer)
    object_tiles = _tiles_by_block(town.game_object_layer)

    sectors: dict[str, Location] = {}

    def sector(name: str, tiles: list[int] | None = None) -> Location:
        if name not in sectors:
            sectors[name] = Location.objects.create(
                town=town,
                parent=world,
                kind=LocationKind.SECTOR,
                name=name,
                address=f"{world.address}:{name}",
                tiles=tiles or [],
            )
        elif tiles:
            sectors[name].tiles = sorted(set(sectors[name].tiles) | set(tiles))
            sectors[name].save(update_fields=["tiles"])
        return sectors[name]

    for row in town.legends["sector"]:
        sector(_clean(row[2]), sector_tiles.get(int(row[0]), []))

    arenas: dict[int, Location] = {}
    arena_by_address: dict[str, Location] = {}
    for row in town.legends["arena"]:
        parent = sector(_clean(row[2]))
        address = f"{parent.address}:{_clean(row[3])}"
        tiles = arena_tiles.get(int(row[0]), [])
        if address in arena_by_address:  # one arena drawn with two block ids
            node = arena_by_address[address]
            node.tiles = sorted(set(node.tiles) | set(tiles))
            node.save(update_fields=["tiles"])
        else:
            node = Location.objects.create(
                town=town,
                parent=parent,
                kind=LocationKind.ARENA,
                name=_clean(row[3]),
                address=address,
                tiles=tiles,
            )
            arena_by_address[address] = node
        arenas[int(row[0])] = node

    # Game objects belong to whatever arena their tile lies in (`<all>` in the legend).
    objects: dict[str, list[int]] = defaultdict(list)
    parents: dict[str, Location] = {}
    for row in town.legends["game_object"]:
        name = _clean(row[3])
        for index in object_tiles.get(int(row[0]), []):
            arena = arenas.get(town.arena_layer[index])
            if arena is None:
                continue
            address = f"{arena.address}:{name}"
            objects[address].append(index)
            parents[address] = arena
    Location.objects.bulk_create(
        Location(
            town=town,
            parent=parents[address],
            kind=LocationKind.OBJECT,
            name=Address.parse(address).object,
            address=address,
            tiles=tiles,
        )
        for address, tiles in sorted(objects.items())
    )


def town_export(*, town: Town, target: Path) -> None:
    """Write `town` to `target` in the reference format (the inverse of `town_import`)."""
    maze_dir = target / "matrix" / "maze"
    legend_dir = target / "matrix" / "special_blocks"
    maze_dir.mkdir(parents=True, exist_ok=True)
    legend_dir.mkdir(parents=True, exist_ok=True)
    (target / "matrix" / "maze_meta_info.json").write_text(town.meta_source)
    for field, stem in LAYERS.items():
        values: list[int] = getattr(town, field)
        (maze_dir / f"{stem}_maze.csv").write_text(", ".join(str(v) for v in values))
    for stem in LEGENDS:
        rows = town.legends.get(stem, [])
        (legend_dir / f"{stem}_blocks.csv").write_text("\n".join(", ".join(r) for r in rows))


def shipped_town_names() -> list[str]:
    """The shipped towns' names: folders in the reference format and grid files."""
    folders = [
        p.name for p in DATA_DIR.iterdir() if (p / "matrix" / "maze_meta_info.json").is_file()
    ]
    return sorted([*folders, *(path.stem for path in GRID_DIR.glob("*.json"))])


def town_get_or_import(name: str = THE_VILLE) -> Town:
    """The named shipped town, imported on first use."""
    shipped = Town.objects.filter(owner__isnull=True)
    town = shipped.filter(name=name).first()
    if town is not None:
        return town
    source = DATA_DIR / name
    grid = GRID_DIR / f"{name}.json"
    if not source.is_dir() and not grid.is_file():
        raise TownFormatError(f"no shipped town called {name!r}")
    # Simultaneous first uses (creates of its bases) import it once: the others wait on
    # the lock, then find the committed town.
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [f"town:{name}"])
        town = shipped.filter(name=name).first()
        if town is None and source.is_dir():
            town = town_import(source=source, name=name)
        elif town is None:
            town = town_from_grid(data=json.loads(grid.read_text()))
    return town
