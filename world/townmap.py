"""The town's map for drawing: its tile layers run-length encoded, its places and objects.

A client draws the town from this alone (the reference art is not ours to ship): walls from
the collision layer, each tile coloured by its sector and arena, names at a label tile.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .models import Location, LocationKind, Town


@dataclass(frozen=True)
class MapPlace:
    """A sector or an arena: its index in its list, name, address and where to write it."""

    index: int
    name: str
    address: str
    label: tuple[int, int]
    parent: int | None  # an arena's sector index; None for a sector


@dataclass(frozen=True)
class MapObject:
    name: str
    address: str
    arena: int | None
    tiles: list[tuple[int, int]]


@dataclass(frozen=True)
class TownMap:
    town_id: int
    name: str
    world_name: str
    width: int
    height: int
    tile_size: int
    collision: list[int]  # runs: value, count, value, count, ... (1 is a wall)
    sector_tiles: list[int]  # runs of sector index + 1 (0: no sector)
    arena_tiles: list[int]  # runs of arena index + 1 (0: no arena)
    sectors: list[MapPlace]
    arenas: list[MapPlace]
    objects: list[MapObject]


def runs(values: Iterable[int]) -> list[int]:
    """Run-length encoding as a flat list: value, count, value, count, ..."""
    out: list[int] = []
    for value in values:
        if out and out[-2] == value:
            out[-1] += 1
        else:
            out += [value, 1]
    return out


def runs_decode(encoded: Sequence[int]) -> list[int]:
    values: list[int] = []
    for i in range(0, len(encoded), 2):
        values += [encoded[i]] * encoded[i + 1]
    return values


def _label(tiles: Sequence[int], width: int) -> tuple[int, int]:
    """The place's tile nearest its centre of mass (inside it even when it is not convex)."""
    xs = [t % width for t in tiles]
    ys = [t // width for t in tiles]
    cx, cy = sum(xs) / len(xs), sum(ys) / len(ys)
    best = min(range(len(tiles)), key=lambda i: (xs[i] - cx) ** 2 + (ys[i] - cy) ** 2)
    return xs[best], ys[best]


def town_map(*, town: Town) -> TownMap:
    """The map of `town`, computed from its place tree (`town` needs its collision layer)."""
    size = town.width * town.height
    places = list(
        Location.objects.filter(town=town)
        .exclude(kind=LocationKind.WORLD)
        .order_by("address")
        .values_list("id", "kind", "name", "address", "parent_id", "tiles")
    )
    sector_of: dict[int, int] = {}
    arena_of: dict[int, int] = {}
    sectors: list[MapPlace] = []
    arenas: list[MapPlace] = []
    sector_layer, arena_layer = [0] * size, [0] * size
    # Addresses sort a sector before its arenas and an arena before its objects.
    for pk, kind, name, address, parent, tiles in places:
        if kind == LocationKind.SECTOR:
            sector_of[pk] = len(sectors)
            label = _label(tiles, town.width) if tiles else (0, 0)
            sectors.append(MapPlace(len(sectors), name, address, label, None))
            for tile in tiles:
                sector_layer[tile] = len(sectors)
        elif kind == LocationKind.ARENA:
            arena_of[pk] = len(arenas)
            label = _label(tiles, town.width) if tiles else (0, 0)
            arenas.append(MapPlace(len(arenas), name, address, label, sector_of.get(parent)))
            for tile in tiles:
                arena_layer[tile] = len(arenas)
    objects = [
        MapObject(name, address, arena_of.get(parent), [town.tile_xy(t) for t in tiles])
        for _, kind, name, address, parent, tiles in places
        if kind == LocationKind.OBJECT
    ]
    return TownMap(
        town_id=town.pk,
        name=town.name,
        world_name=town.world_name,
        width=town.width,
        height=town.height,
        tile_size=town.tile_size,
        collision=runs(1 if value else 0 for value in town.collision),
        sector_tiles=runs(sector_layer),
        arena_tiles=runs(arena_layer),
        sectors=sectors,
        arenas=arenas,
        objects=objects,
    )
