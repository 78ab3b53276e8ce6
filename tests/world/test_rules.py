"""World rules on plain grids and files: paths on a hand-drawn map, the maze format's
reading and writing; no database (tests/world/test_paths.py walks the Ville itself)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from world import paths
from world.models import Town
from world.paths import (
    NotWalkable,
    UnknownAddress,
    Unreachable,
    closest_addresses,
    distance_field,
    grid_stats,
    location_anchor,
    path_between_locations,
    path_between_tiles,
    path_to_location,
    walkable,
)
from world.towns import TownFormatError, _read_layer, _read_legend, _tiles_by_block, town_export

# x: 012345      '#' is a collision tile. The main area winds from (1, 0) round to (4, 0)
MAP = [  #        and down to (3, 3); (5, 1)..(5, 3) is a sealed pocket.
    "..#..#",  # y 0
    ".##.#.",  # y 1
    "....#.",  # y 2
    "###.#.",  # y 3
]
WIDTH, HEIGHT = 6, 4
STOOL = "town:cafe:counter:stool"  # one walkable tile, (4, 0)
HALL = "town:cafe:hall"  # (5, 1) in the pocket, (0, 2) and (1, 2) in the main area
WALL_ART = "town:cafe:wall art"  # only the blocked tile (2, 1)
NOWHERE = "town:nowhere"  # no tile at all


def _index(x: int, y: int) -> int:
    return y * WIDTH + x


@pytest.fixture
def town() -> Iterator[Town]:
    """An unsaved town whose grid is put in the path cache under its key, as if built."""
    town = Town(
        id=-1,
        name="unit",
        world_name="town",
        width=WIDTH,
        height=HEIGHT,
        collision=[1 if cell == "#" else 0 for row in MAP for cell in row],
        created_at=datetime(2000, 1, 1, tzinfo=UTC),
    )
    grid = paths._grid_from(
        key=(town.pk, town.created_at),
        width=WIDTH,
        height=HEIGHT,
        collision=town.collision,
        locations=[
            (STOOL, [_index(4, 0)]),
            (HALL, [_index(5, 1), _index(0, 2), _index(1, 2)]),
            (WALL_ART, [_index(2, 1)]),
            (NOWHERE, []),
        ],
    )
    with paths._grids_lock:
        paths._grids[grid.key] = grid
    yield town
    with paths._grids_lock:
        del paths._grids[grid.key]


def _assert_steps(path: list[tuple[int, int]]) -> None:
    for (x0, y0), (x1, y1) in itertools.pairwise(path):
        assert abs(x0 - x1) + abs(y0 - y1) == 1
        assert MAP[y1][x1] == "."


# --- walking -------------------------------------------------------------------------


def test_the_shortest_walk_follows_the_corridor(town: Town) -> None:
    path = path_between_tiles(town=town, start=(1, 0), end=(4, 0))
    assert path == [(1, 0), (0, 0), (0, 1), (0, 2), (1, 2), (2, 2), (3, 2), (3, 1), (3, 0), (4, 0)]
    _assert_steps(path)


def test_a_walk_to_where_one_stands_is_that_tile(town: Town) -> None:
    assert path_between_tiles(town=town, start=(3, 3), end=(3, 3)) == [(3, 3)]


def test_walks_go_both_ways_at_the_same_length(town: Town) -> None:
    there = path_between_tiles(town=town, start=(0, 0), end=(3, 3))
    back = path_between_tiles(town=town, start=(3, 3), end=(0, 0))
    assert len(there) == len(back) == 7  # 6 steps
    _assert_steps(there)
    _assert_steps(back)


def test_blocked_and_outside_tiles_are_not_walkable(town: Town) -> None:
    assert walkable(town=town, tile=(0, 0))
    assert not walkable(town=town, tile=(2, 0))
    assert not walkable(town=town, tile=(6, 0))
    assert not walkable(town=town, tile=(0, -1))
    with pytest.raises(NotWalkable, match=r"tile \(2, 0\) is blocked"):
        path_between_tiles(town=town, start=(2, 0), end=(0, 0))
    with pytest.raises(NotWalkable, match=r"tile \(6, 0\) is outside the 6x4 map"):
        path_between_tiles(town=town, start=(0, 0), end=(6, 0))


def test_a_sealed_pocket_is_unreachable(town: Town) -> None:
    with pytest.raises(Unreachable, match=r"no walkable path from \(0, 0\) to \(5, 2\)"):
        path_between_tiles(town=town, start=(0, 0), end=(5, 2))
    assert path_between_tiles(town=town, start=(5, 1), end=(5, 3)) == [(5, 1), (5, 2), (5, 3)]
    with pytest.raises(Unreachable, match="no walkable path from"):
        path_to_location(town=town, start=(5, 3), address=STOOL)


# --- locations -----------------------------------------------------------------------


def test_a_walk_to_a_location_ends_on_its_nearest_tile(town: Town) -> None:
    assert path_to_location(town=town, start=(3, 3), address=HALL) == [
        (3, 3),
        (3, 2),
        (2, 2),
        (1, 2),
    ]
    assert path_to_location(town=town, start=(0, 2), address=HALL) == [(0, 2)]


def test_the_pocket_tiles_of_a_location_are_still_its_own(town: Town) -> None:
    assert path_to_location(town=town, start=(5, 3), address=HALL) == [(5, 3), (5, 2), (5, 1)]


def test_an_object_drawn_on_blocked_tiles_is_reached_beside_it(town: Town) -> None:
    path = path_to_location(town=town, start=(3, 3), address=WALL_ART)
    assert len(path) == 3
    assert path[-1] in {(2, 2), (3, 1)}  # the walkable tiles next to (2, 1)


def test_a_location_without_tiles_is_unreachable(town: Town) -> None:
    with pytest.raises(Unreachable, match="has no walkable tile and none next to it"):
        path_to_location(town=town, start=(0, 0), address=NOWHERE)
    with pytest.raises(Unreachable, match="has no walkable tile"):
        location_anchor(town=town, address=NOWHERE)


def test_a_walk_from_a_location_starts_in_the_area_holding_most_of_it(town: Town) -> None:
    # (5, 1) comes first row-major, but it lies in the pocket; (0, 2) is the first of the
    # two tiles in the main area.
    assert location_anchor(town=town, address=HALL) == (0, 2)
    path = path_between_locations(town=town, from_address=HALL, to_address=STOOL)
    assert path == [(0, 2), (1, 2), (2, 2), (3, 2), (3, 1), (3, 0), (4, 0)]


def test_an_unknown_address_suggests_the_closest_known_ones(town: Town) -> None:
    with pytest.raises(UnknownAddress) as unknown:
        path_to_location(town=town, start=(0, 0), address="TOWN:CAFE:HALL")
    assert unknown.value.address == "TOWN:CAFE:HALL"
    assert unknown.value.suggestions[0] == HALL
    assert "did you mean 'town:cafe:hall'" in str(unknown.value)


def test_closest_addresses_compare_case_folded_and_give_the_known_spelling() -> None:
    known = ["the Ville:Hobbs Cafe:cafe", "the Ville:Johnson Park:park", "the Ville:Hobbs Cafe"]
    assert closest_addresses("the ville:hobbs cafe:cafe", known)[0] == "the Ville:Hobbs Cafe:cafe"
    assert closest_addresses("a submarine", known) == []


def test_closest_addresses_are_at_most_five() -> None:
    known = [f"the Ville:house {n}" for n in range(20)]
    close = closest_addresses("the Ville:house", known)
    assert len(close) == paths.MAX_SUGGESTIONS == 5
    assert set(close) <= set(known)


# --- the whole grid ------------------------------------------------------------------


def test_distance_field_counts_steps_and_marks_the_rest_minus_one(town: Town) -> None:
    assert distance_field(town=town, targets=[(3, 3)]) == [
        *[6, 7, -1, 3, 4, -1],
        *[5, -1, -1, 2, -1, -1],
        *[4, 3, 2, 1, -1, -1],
        *[-1, -1, -1, 0, -1, -1],
    ]


def test_distance_field_measures_to_the_nearest_target(town: Town) -> None:
    distance = distance_field(town=town, targets=[(3, 3), (1, 0)])
    assert distance[_index(0, 0)] == 1
    assert distance[_index(0, 2)] == 3
    assert distance[_index(3, 2)] == 1


def test_grid_stats_count_walkable_tiles_and_areas(town: Town) -> None:
    stats = grid_stats(town=town)
    assert (stats.tiles, stats.walkable, stats.areas, stats.largest_area) == (24, 14, 2, 11)


# --- the maze format -----------------------------------------------------------------


def test_a_maze_layer_is_one_row_of_ints(tmp_path: Path) -> None:
    layer = tmp_path / "sector_maze.csv"
    layer.write_text("0, 32135, 0, 32135")
    assert _read_layer(layer, 4) == [0, 32135, 0, 32135]


@pytest.mark.parametrize(
    ("text", "size", "problem"),
    [
        ("0, 1, 2", 4, "3 tiles, expected 4"),
        ("0, 1, x, 2", 4, "not a comma-separated list of ints"),
        ("", 1, "not a comma-separated list of ints"),
    ],
)
def test_a_bad_maze_layer_is_a_format_error(
    tmp_path: Path, text: str, size: int, problem: str
) -> None:
    layer = tmp_path / "collision_maze.csv"
    layer.write_text(text)
    with pytest.raises(TownFormatError, match=problem):
        _read_layer(layer, size)
    with pytest.raises(TownFormatError, match="missing maze file"):
        _read_layer(tmp_path / "arena_maze.csv", size)


def test_legend_cells_are_kept_as_read(tmp_path: Path) -> None:
    legend = tmp_path / "sector_blocks.csv"
    legend.write_text(
        "32135, the Ville, artist's co-living space\n32155, the Ville, Ryan Park's apartment \n"
    )
    assert _read_legend(legend, 3) == [
        ["32135", "the Ville", "artist's co-living space"],
        ["32155", "the Ville", "Ryan Park's apartment "],  # the stray space stays
    ]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("32138, the Ville, cafe, kitchen\n32148, the Ville", r"row 2: expected a block id and 3"),
        ("cafe, the Ville, Hobbs Cafe, cafe", r"row 1: expected a block id"),
    ],
)
def test_a_bad_legend_row_is_a_format_error(tmp_path: Path, text: str, problem: str) -> None:
    legend = tmp_path / "arena_blocks.csv"
    legend.write_text(text)
    with pytest.raises(TownFormatError, match=problem):
        _read_legend(legend, 4)


def test_tiles_are_grouped_by_block_id_skipping_zero() -> None:
    assert _tiles_by_block([0, 7, 0, 7, 9, 0]) == {7: [1, 3], 9: [4]}
    assert _tiles_by_block([0, 0]) == {}


def test_export_writes_the_format_import_reads(tmp_path: Path) -> None:
    legends = {
        "world": [["32134", "the Ville"]],
        "sector": [
            ["32135", "the Ville", "Hobbs Cafe"],
            ["32155", "the Ville", "Ryan Park's apartment "],
        ],
    }
    town = Town(
        name="unit",
        world_name="the Ville",
        width=2,
        height=2,
        meta_source='{"maze_width": 2, "maze_height": 2}\n',
        collision=[0, 1, 0, 0],
        sector_layer=[32135, 32135, 0, 32155],
        arena_layer=[0, 0, 0, 0],
        game_object_layer=[0, 0, 0, 0],
        spawning_layer=[0, 0, 0, 0],
        legends=legends,
    )
    town_export(town=town, target=tmp_path)
    matrix = tmp_path / "matrix"
    assert (matrix / "maze_meta_info.json").read_text() == town.meta_source
    assert (matrix / "maze" / "sector_maze.csv").read_text() == "32135, 32135, 0, 32155"
    assert _read_layer(matrix / "maze" / "collision_maze.csv", 4) == [0, 1, 0, 0]
    sectors = matrix / "special_blocks" / "sector_blocks.csv"
    assert sectors.read_text() == (
        "32135, the Ville, Hobbs Cafe\n32155, the Ville, Ryan Park's apartment "
    )
    assert _read_legend(sectors, 3) == legends["sector"]
    assert (matrix / "special_blocks" / "arena_blocks.csv").read_text() == ""
