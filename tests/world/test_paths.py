"""Paths on the Ville: shape, optimality, errors, caching, and every arena reachable from home."""

from __future__ import annotations

import itertools
import random
from collections import deque

import pytest

from agents.bases import base_load
from world.models import Location, LocationKind, Town
from world.paths import (
    NotWalkable,
    UnknownAddress,
    Unreachable,
    distance_field,
    grid_stats,
    location_anchor,
    path_between_locations,
    path_between_tiles,
    path_cache_clear,
    path_to_location,
    walkable,
)

Tile = tuple[int, int]
HOBBS_CAFE = "the Ville:Hobbs Cafe:cafe"


def _open(town: Town, tile: Tile) -> bool:
    x, y = tile
    return 0 <= x < town.width and 0 <= y < town.height and town.collision[y * town.width + x] == 0


def _bfs_steps(town: Town, start: Tile, goals: set[Tile]) -> int | None:
    """Independent reference: steps of a shortest 4-connected walk, None when unreachable."""
    seen = {start}
    queue = deque([(start, 0)])
    while queue:
        (x, y), steps = queue.popleft()
        if (x, y) in goals:
            return steps
        for nxt in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if nxt not in seen and _open(town, nxt):
                seen.add(nxt)
                queue.append((nxt, steps + 1))
    return None


def _assert_walk(town: Town, path: list[Tile], start: Tile) -> None:
    assert path[0] == start
    assert all(_open(town, tile) for tile in path), path
    for (x0, y0), (x1, y1) in itertools.pairwise(path):
        assert abs(x0 - x1) + abs(y0 - y1) == 1, ((x0, y0), (x1, y1))
    assert len(set(path)) == len(path)  # a shortest walk never revisits a tile


def _town_tiles(town: Town) -> list[Tile]:
    """Walkable tiles in the same connected area as Hobbs Cafe (the town proper)."""
    cafe = Location.objects.get(town=town, address=HOBBS_CAFE).tiles
    start = town.tile_xy(next(i for i in cafe if town.collision[i] == 0))
    distance = distance_field(town=town, targets=[start])
    return [town.tile_xy(i) for i, d in enumerate(distance) if d >= 0]


def _tiles(town: Town, address: str) -> set[Tile]:
    return {town.tile_xy(i) for i in Location.objects.get(town=town, address=address).tiles}


@pytest.mark.django_db
def test_random_paths_are_shortest_walks(ville: Town) -> None:
    rng = random.Random(20230413)
    tiles = _town_tiles(ville)
    for _ in range(12):
        start, end = rng.sample(tiles, 2)
        path = path_between_tiles(town=ville, start=start, end=end)
        _assert_walk(ville, path, start)
        assert path[-1] == end
        assert len(path) - 1 == _bfs_steps(ville, start, {end})


@pytest.mark.django_db
def test_start_equal_to_end_is_one_tile(ville: Town) -> None:
    tile = _town_tiles(ville)[0]
    assert path_between_tiles(town=ville, start=tile, end=tile) == [tile]


@pytest.mark.django_db
def test_path_to_location_ends_on_its_nearest_tile(ville: Town) -> None:
    rng = random.Random(7)
    tiles = _town_tiles(ville)
    goal = _tiles(ville, HOBBS_CAFE)
    for start in rng.sample(tiles, 5):
        path = path_to_location(town=ville, start=start, address=HOBBS_CAFE)
        _assert_walk(ville, path, start)
        assert path[-1] in goal
        assert len(path) - 1 == _bfs_steps(ville, start, goal)
        assert all(tile not in goal for tile in path[:-1]) or len(path) == 1


@pytest.mark.django_db
def test_path_between_locations_is_deterministic(ville: Town) -> None:
    origin = "the Ville:Isabella Rodriguez's apartment:main room"
    path = path_between_locations(town=ville, from_address=origin, to_address=HOBBS_CAFE)
    assert path[0] in _tiles(ville, origin)
    assert path[0] == location_anchor(town=ville, address=origin)
    assert path[-1] in _tiles(ville, HOBBS_CAFE)
    _assert_walk(ville, path, path[0])
    path_cache_clear()
    again = path_between_locations(town=ville, from_address=origin, to_address=HOBBS_CAFE)
    assert again == path


@pytest.mark.django_db
def test_cached_paths_are_identical(ville: Town) -> None:
    rng = random.Random(3)
    tiles = _town_tiles(ville)
    pairs = [tuple(rng.sample(tiles, 2)) for _ in range(5)]
    path_cache_clear()
    cold = [path_between_tiles(town=ville, start=s, end=e) for s, e in pairs]
    warm = [path_between_tiles(town=ville, start=s, end=e) for s, e in pairs]
    assert warm == cold
    cold_to_cafe = [path_to_location(town=ville, start=s, address=HOBBS_CAFE) for s, _ in pairs]
    warm_to_cafe = [path_to_location(town=ville, start=s, address=HOBBS_CAFE) for s, _ in pairs]
    assert warm_to_cafe == cold_to_cafe


@pytest.mark.django_db
def test_blocked_and_outside_tiles_are_not_walkable(ville: Town) -> None:
    blocked = ville.tile_xy(ville.collision.index(next(v for v in ville.collision if v)))
    inside = _town_tiles(ville)[0]
    assert not walkable(town=ville, tile=blocked)
    assert walkable(town=ville, tile=inside)
    assert not walkable(town=ville, tile=(-1, 0))
    assert not walkable(town=ville, tile=(ville.width, 0))
    with pytest.raises(NotWalkable, match=rf"tile \({blocked[0]}, {blocked[1]}\) is blocked"):
        path_between_tiles(town=ville, start=blocked, end=inside)
    with pytest.raises(NotWalkable, match="blocked"):
        path_between_tiles(town=ville, start=inside, end=blocked)
    with pytest.raises(NotWalkable, match=r"tile \(140, 3\) is outside"):
        path_to_location(town=ville, start=(140, 3), address=HOBBS_CAFE)


@pytest.mark.django_db
def test_unreachable_tiles(ville: Town) -> None:
    # (0, 0) is walkable but lies in the empty margin outside the town's walls.
    inside = _town_tiles(ville)[0]
    assert walkable(town=ville, tile=(0, 0))
    with pytest.raises(Unreachable, match=r"from \(0, 0\) to"):
        path_between_tiles(town=ville, start=(0, 0), end=inside)
    with pytest.raises(Unreachable, match="Hobbs Cafe"):
        path_to_location(town=ville, start=(0, 0), address=HOBBS_CAFE)


@pytest.mark.django_db
def test_unknown_address_suggests_near_ones(ville: Town) -> None:
    with pytest.raises(UnknownAddress) as caught:
        path_to_location(
            town=ville, start=_town_tiles(ville)[0], address="the ville:hobbs cafe:caffe"
        )
    assert caught.value.suggestions[0] == HOBBS_CAFE
    assert 1 <= len(caught.value.suggestions) <= 5
    assert "caffe" in str(caught.value) and HOBBS_CAFE in str(caught.value)
    assert isinstance(caught.value, ValueError)
    with pytest.raises(UnknownAddress):
        path_between_locations(town=ville, from_address="nowhere", to_address=HOBBS_CAFE)
    with pytest.raises(UnknownAddress):
        path_between_locations(town=ville, from_address=HOBBS_CAFE, to_address="nowhere")


@pytest.mark.django_db
def test_every_game_object_tile_is_walkable(ville: Town) -> None:
    """Why objects need no special case: agents stand on object tiles, never on walls."""
    for index, block in enumerate(ville.game_object_layer):
        if block:
            assert ville.collision[index] == 0, ville.tile_xy(index)


@pytest.mark.django_db
def test_every_arena_is_reachable_from_every_residents_home(ville: Town) -> None:
    base = base_load("base_the_ville_n25")
    assert len(base.personas) == 25
    arenas = list(
        Location.objects.filter(town=ville, kind=LocationKind.ARENA).values_list("address", "tiles")
    )
    assert len(arenas) == 63
    failures = []
    for persona in base.personas:
        home = persona.tile
        assert walkable(town=ville, tile=home), persona.name
        home_address = persona.identity["living_area"]
        assert home in _tiles(ville, home_address), (persona.name, home_address)
        for address, tiles in arenas:
            try:
                path = path_to_location(town=ville, start=home, address=address)
            except Unreachable as exc:
                failures.append(f"{persona.name}: {exc}")
                continue
            assert path[0] == home
            assert ville.tile_index(*path[-1]) in tiles
    assert failures == []


@pytest.mark.django_db
def test_arena_to_arena_paths_start_inside_the_town(ville: Town) -> None:
    """Some arena tiles leak outside the walls or into sealed pockets; walks avoid them."""
    addresses = sorted(
        Location.objects.filter(town=ville, kind=LocationKind.ARENA).values_list(
            "address", flat=True
        )
    )
    town_proper = set(_town_tiles(ville))
    for address in addresses:
        assert location_anchor(town=ville, address=address) in town_proper, address
    for to_address in addresses[:5]:
        for from_address in addresses:
            path = path_between_locations(
                town=ville, from_address=from_address, to_address=to_address
            )
            assert path[-1] in _tiles(ville, to_address)


@pytest.mark.django_db
def test_distance_field_agrees_with_paths(ville: Town) -> None:
    rng = random.Random(11)
    tiles = _town_tiles(ville)
    target = rng.choice(tiles)
    distance = distance_field(town=ville, targets=[target])
    for start in rng.sample(tiles, 5):
        path = path_between_tiles(town=ville, start=start, end=target)
        assert distance[ville.tile_index(*start)] == len(path) - 1
    assert distance[0] == -1  # the outside margin


@pytest.mark.django_db
def test_grid_stats(ville: Town) -> None:
    stats = grid_stats(town=ville)
    assert stats.tiles == ville.width * ville.height
    assert stats.walkable == sum(1 for v in ville.collision if v == 0)
    assert stats.areas >= 2  # the town proper and the margin outside its walls
