"""Shortest walkable paths on a town's collision grid, with per-process caches.

Walkability is the collision layer alone, as in the reference implementation: a tile is
blocked when its collision value is non-zero, and moves are 4-connected (no diagonals).
Game-object tiles (beds, desks, the cafe counter...) are where an agent stands to use the
object; in the Ville every one of them is walkable. Should a town mark all of a
location's tiles as blocked, we target the walkable tiles next to them instead, so an agent
can still walk up to the object it uses.

Speed: the grid (neighbour lists, connected areas, location targets) is built once per
process per town, keyed by the town's pk and created_at, so a re-imported town gets a new
grid. A breadth-first search from a target (a tile or all walkable tiles of a location)
fills a direction field over the whole map, one byte per tile saying which way to step;
the last few thousand fields are kept (LRU), so a query toward a cached target is only a
walk of those bytes. Pure Python measured faster than numpy here: a full search of the
Ville takes ~1 ms in plain lists, ~3 ms as numpy frontier arrays (bench.pathfinding).
"""

from __future__ import annotations

import difflib
import threading
from collections import Counter, OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache

from .models import Location, Town

Tile = tuple[int, int]

# Direction codes in a field: the step to take from a tile to get one tile closer.
_EAST, _WEST, _SOUTH, _NORTH, _ARRIVED = 1, 2, 3, 4, 5
FIELD_CACHE_SIZE = 2048  # a field is width*height bytes: 14 kB for the Ville
GRID_CACHE_SIZE = 8
MAX_SUGGESTIONS = 5


class NotWalkable(ValueError):
    """A start or end tile is blocked or outside the map."""


class Unreachable(ValueError):
    """No walkable path joins the two ends (they lie in different walkable areas)."""


class UnknownAddress(ValueError):
    """No location of the town has this address; `suggestions` are the closest ones."""

    def __init__(self, address: str, suggestions: list[str]) -> None:
        self.address = address
        self.suggestions = suggestions
        hint = f"; did you mean {', '.join(repr(s) for s in suggestions)}?" if suggestions else ""
        super().__init__(f"unknown address {address!r}{hint}")


@dataclass(frozen=True)
class GridStats:
    tiles: int
    walkable: int
    areas: int  # connected walkable areas
    largest_area: int  # walkable tiles in the largest one


@dataclass(eq=False, frozen=True)
class _Grid:
    """Everything about a town that path queries need, read once from the database."""

    key: tuple[int, datetime]
    width: int
    height: int
    walkable: bytes  # 1 per walkable tile
    neighbours: tuple[tuple[tuple[int, int], ...], ...]  # tile -> ((neighbour, step back), ...)
    area: tuple[int, ...]  # tile -> connected walkable area id, -1 when blocked
    targets: dict[str, tuple[int, ...]]  # address -> walkable tiles to walk to
    target_areas: dict[str, frozenset[int]]
    anchors: dict[str, int]  # address -> the tile a walk from that location starts on

    def index(self, tile: Tile) -> int:
        x, y = tile
        if not (0 <= x < self.width and 0 <= y < self.height):
            raise NotWalkable(f"tile {tile} is outside the {self.width}x{self.height} map")
        return y * self.width + x

    def walkable_index(self, tile: Tile) -> int:
        index = self.index(tile)
        if not self.walkable[index]:
            raise NotWalkable(f"tile {tile} is blocked (collision)")
        return index

    def xy(self, index: int) -> Tile:
        return index % self.width, index // self.width

    def targets_of(self, address: str) -> tuple[int, ...]:
        try:
            return self.targets[address]
        except KeyError:
            raise UnknownAddress(address, self.suggest(address)) from None

    def suggest(self, address: str) -> list[str]:
        return closest_addresses(address, self.targets)


def closest_addresses(address: str, known: Iterable[str]) -> list[str]:
    """Up to MAX_SUGGESTIONS of `known` closest to `address`, for an UnknownAddress."""
    # Compare case-folded so "the ville:hobbs cafe" still finds "the Ville:Hobbs Cafe".
    folded: dict[str, str] = {}
    for candidate in sorted(known):
        folded.setdefault(candidate.casefold(), candidate)
    matches = difflib.get_close_matches(address.casefold(), folded, n=MAX_SUGGESTIONS)
    return [folded[match] for match in matches]


_grids: OrderedDict[tuple[int, datetime], _Grid] = OrderedDict()
_grids_lock = threading.Lock()


def _grid(town: Town) -> _Grid:
    key = (town.pk, town.created_at)
    with _grids_lock:
        grid = _grids.get(key)
        if grid is not None:
            _grids.move_to_end(key)
            return grid
    grid = _grid_build(town)  # outside the lock: two threads may both build, both correct
    with _grids_lock:
        _grids[key] = grid
        while len(_grids) > GRID_CACHE_SIZE:
            _grids.popitem(last=False)
    return grid


def _grid_build(town: Town) -> _Grid:
    return _grid_from(
        key=(town.pk, town.created_at),
        width=town.width,
        height=town.height,
        collision=town.collision,
        locations=Location.objects.filter(town=town).values_list("address", "tiles"),
    )


def _grid_from(
    *,
    key: tuple[int, datetime],
    width: int,
    height: int,
    collision: Sequence[int],
    locations: Iterable[tuple[str, list[int]]],
) -> _Grid:
    """The grid of a collision layer (row-major) and its locations' (address, tiles)."""
    walkable = bytes(1 if value == 0 else 0 for value in collision)
    neighbours: list[tuple[tuple[int, int], ...]] = []
    for index in range(width * height):
        if not walkable[index]:
            neighbours.append(())
            continue
        x, y = index % width, index // width
        # (neighbour, the step from that neighbour back to this tile)
        candidates = (
            (index + 1, _WEST, x + 1 < width),
            (index - 1, _EAST, x > 0),
            (index + width, _NORTH, y + 1 < height),
            (index - width, _SOUTH, y > 0),
        )
        neighbours.append(
            tuple((other, step) for other, step, inside in candidates if inside and walkable[other])
        )
    area = _areas(neighbours, walkable)

    targets: dict[str, tuple[int, ...]] = {}
    anchors: dict[str, int] = {}
    for address, tiles in locations:
        goal = _walkable_targets(tiles, walkable, neighbours, width, height)
        targets[address] = goal
        if goal:
            anchors[address] = _anchor(goal, area)
    return _Grid(
        key=key,
        width=width,
        height=height,
        walkable=walkable,
        neighbours=tuple(neighbours),
        area=area,
        targets=targets,
        target_areas={
            address: frozenset(area[t] for t in goal) for address, goal in targets.items()
        },
        anchors=anchors,
    )


def _areas(neighbours: list[tuple[tuple[int, int], ...]], walkable: bytes) -> tuple[int, ...]:
    area = [-1] * len(walkable)
    label = 0
    for seed in range(len(walkable)):
        if not walkable[seed] or area[seed] >= 0:
            continue
        area[seed] = label
        stack = [seed]
        while stack:
            for other, _ in neighbours[stack.pop()]:
                if area[other] < 0:
                    area[other] = label
                    stack.append(other)
        label += 1
    return tuple(area)


def _walkable_targets(
    tiles: list[int],
    walkable: bytes,
    neighbours: list[tuple[tuple[int, int], ...]],
    width: int,
    height: int,
) -> tuple[int, ...]:
    """The location's walkable tiles, or when it has none, the walkable tiles around it."""
    own = sorted(t for t in tiles if walkable[t])
    if own or not tiles:
        return tuple(own)
    around: set[int] = set()
    for t in tiles:
        x, y = t % width, t // width
        for ox, oy in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if 0 <= ox < width and 0 <= oy < height and walkable[oy * width + ox]:
                around.add(oy * width + ox)
    return tuple(sorted(around))


def _anchor(goal: tuple[int, ...], area: tuple[int, ...]) -> int:
    """The first tile (row-major) in the area holding most of the location's tiles.

    Not simply the first tile: a few arena tiles of the Ville lie outside its walls or in
    sealed pockets, and a walk must not start there.
    """
    counts = Counter(area[t] for t in goal)
    main = max(counts, key=lambda a: (counts[a], -min(t for t in goal if area[t] == a)))
    return next(t for t in goal if area[t] == main)


@lru_cache(maxsize=FIELD_CACHE_SIZE)
def _field(grid: _Grid, target: int | str) -> bytes:
    """Direction field toward a tile index or toward every target tile of an address."""
    sources = (target,) if isinstance(target, int) else grid.targets[target]
    field = bytearray(len(grid.walkable))
    for source in sources:
        field[source] = _ARRIVED
    neighbours = grid.neighbours
    frontier = list(sources)
    while frontier:
        reached: list[int] = []
        append = reached.append
        for tile in frontier:
            for other, step in neighbours[tile]:
                if not field[other]:
                    field[other] = step
                    append(other)
        frontier = reached
    return bytes(field)


def _walk(grid: _Grid, field: bytes, start: int) -> list[Tile]:
    width = grid.width
    offsets = (0, 1, -1, width, -width)  # indexed by _EAST, _WEST, _SOUTH, _NORTH
    tile = start
    path = [(tile % width, tile // width)]
    step = field[tile]
    while step != _ARRIVED:
        tile += offsets[step]
        path.append((tile % width, tile // width))
        step = field[tile]
    return path


def walkable(*, town: Town, tile: Tile) -> bool:
    """Whether an agent may stand on `tile` (inside the map and not a collision tile)."""
    x, y = tile
    if not (0 <= x < town.width and 0 <= y < town.height):
        return False
    return bool(_grid(town).walkable[y * town.width + x])


def reaches_places(*, town: Town, tile: Tile) -> bool:
    """Whether a walk from the walkable `tile` reaches the start tile of some place of the
    town (not so from a walled-in pocket)."""
    grid = _grid(town)
    area = grid.area[grid.walkable_index(tile)]
    return any(grid.area[anchor] == area for anchor in grid.anchors.values())


def path_between_tiles(*, town: Town, start: Tile, end: Tile) -> list[Tile]:
    """A shortest 4-connected walk from `start` to `end`, both included."""
    grid = _grid(town)
    origin = grid.walkable_index(start)
    goal = grid.walkable_index(end)
    if grid.area[origin] != grid.area[goal]:
        raise Unreachable(f"no walkable path from {start} to {end}")
    return _walk(grid, _field(grid, goal), origin)


def path_to_location(*, town: Town, start: Tile, address: str) -> list[Tile]:
    """A shortest walk from `start` to the nearest walkable tile of the location `address`."""
    grid = _grid(town)
    origin = grid.walkable_index(start)
    if not grid.targets_of(address):
        raise Unreachable(f"{address!r} has no walkable tile and none next to it")
    if grid.area[origin] not in grid.target_areas[address]:
        raise Unreachable(f"no walkable path from {start} to {address!r}")
    return _walk(grid, _field(grid, address), origin)


def path_between_locations(*, town: Town, from_address: str, to_address: str) -> list[Tile]:
    """A walk from a fixed tile of `from_address` to the nearest tile of `to_address`.

    The start is the location's first walkable tile (row-major) in its main walkable area,
    so the same pair of addresses always gives the same path.
    """
    grid = _grid(town)
    if not grid.targets_of(from_address):
        raise Unreachable(f"{from_address!r} has no walkable tile to start from")
    start = grid.xy(grid.anchors[from_address])
    return path_to_location(town=town, start=start, address=to_address)


def location_anchor(*, town: Town, address: str) -> Tile:
    """The tile a walk from `address` starts on (see `path_between_locations`)."""
    grid = _grid(town)
    if not grid.targets_of(address):
        raise Unreachable(f"{address!r} has no walkable tile")
    return grid.xy(grid.anchors[address])


def distance_field(*, town: Town, targets: list[Tile]) -> list[int]:
    """Steps from every tile to the nearest of `targets` (row-major; -1 when unreachable).

    Not cached: for ranking many candidate places at once, not for per-tick walking.
    """
    grid = _grid(town)
    sources = sorted({grid.walkable_index(tile) for tile in targets})
    distance = [-1] * len(grid.walkable)
    for source in sources:
        distance[source] = 0
    frontier = sources
    steps = 0
    while frontier:
        steps += 1
        reached: list[int] = []
        for tile in frontier:
            for other, _ in grid.neighbours[tile]:
                if distance[other] < 0:
                    distance[other] = steps
                    reached.append(other)
        frontier = reached
    return distance


def grid_stats(*, town: Town) -> GridStats:
    """Walkable tiles of `town` and how they split into connected areas."""
    grid = _grid(town)
    sizes = Counter(a for a in grid.area if a >= 0)
    return GridStats(
        tiles=len(grid.walkable),
        walkable=sum(grid.walkable),
        areas=len(sizes),
        largest_area=max(sizes.values(), default=0),
    )


def path_cache_clear() -> None:
    """Forget every grid and field (benchmarks measure cold queries with it)."""
    with _grids_lock:
        _grids.clear()
    _field.cache_clear()
