"""Town import/export round trip, the location tree it builds, and the management commands."""

from __future__ import annotations

import io
import shutil
import threading
from collections import defaultdict
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from world.models import Location, LocationKind, Town
from world.towns import (
    DATA_DIR,
    TownFormatError,
    town_export,
    town_get_or_import,
    town_import,
)

SOURCE = DATA_DIR / "the_ville"


def _legend(stem: str) -> list[list[str]]:
    text = (SOURCE / "matrix" / "special_blocks" / f"{stem}_blocks.csv").read_text()
    return [[cell.strip() for cell in line.split(",")] for line in text.splitlines() if line]


def _layer(stem: str) -> list[int]:
    return [
        int(v) for v in (SOURCE / "matrix" / "maze" / f"{stem}_maze.csv").read_text().split(",")
    ]


def _expected_addresses() -> dict[str, set[str]]:
    """Addresses the legends imply, worked out here without world.towns."""
    world = _legend("world")[0][1]
    sectors = {f"{world}:{row[2]}" for row in _legend("sector")}
    arena_by_id = {int(row[0]): f"{world}:{row[2]}:{row[3]}" for row in _legend("arena")}
    sectors |= {address.rsplit(":", 1)[0] for address in arena_by_id.values()}
    object_names = {int(row[0]): row[3] for row in _legend("game_object")}
    arena_layer = _layer("arena")
    objects = set()
    for index, block in enumerate(_layer("game_object")):
        if block and arena_layer[index] in arena_by_id:
            objects.add(f"{arena_by_id[arena_layer[index]]}:{object_names[block]}")
    return {
        LocationKind.WORLD: {world},
        LocationKind.SECTOR: sectors,
        LocationKind.ARENA: set(arena_by_id.values()),
        LocationKind.OBJECT: objects,
    }


@pytest.mark.django_db
def test_export_reproduces_every_source_file(ville: Town, tmp_path: Path) -> None:
    town_export(town=ville, target=tmp_path)
    sources = sorted(p.relative_to(SOURCE) for p in (SOURCE / "matrix").rglob("*") if p.is_file())
    exported = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    assert exported == sources
    assert len(sources) == 11  # meta + 5 mazes + 5 legends
    for relative in sources:
        assert (tmp_path / relative).read_bytes() == (SOURCE / relative).read_bytes(), relative


@pytest.mark.django_db
def test_reimporting_the_export_gives_the_same_town(ville: Town, tmp_path: Path) -> None:
    town_export(town=ville, target=tmp_path)
    copy = town_import(source=tmp_path, name="ville_copy")
    for field in ("collision", "sector_layer", "arena_layer", "game_object_layer", "legends"):
        assert getattr(copy, field) == getattr(ville, field), field
    assert sorted(copy.locations.values_list("address", "tiles")) == sorted(
        ville.locations.values_list("address", "tiles")
    )


@pytest.mark.django_db
def test_location_counts_are_what_the_legends_imply(ville: Town) -> None:
    expected = _expected_addresses()
    for kind, addresses in expected.items():
        stored = set(ville.locations.filter(kind=kind).values_list("address", flat=True))
        assert stored == addresses, kind
    assert len(expected[LocationKind.SECTOR]) == 19
    assert len(expected[LocationKind.ARENA]) == len(_legend("arena"))  # no duplicate arenas


@pytest.mark.django_db
def test_every_node_extends_its_parents_address(ville: Town) -> None:
    depth = {
        LocationKind.WORLD: 1,
        LocationKind.SECTOR: 2,
        LocationKind.ARENA: 3,
        LocationKind.OBJECT: 4,
    }
    for node in ville.locations.select_related("parent"):
        assert len(node.address.split(":")) == depth[LocationKind(node.kind)], node.address
        assert node.address.endswith(f":{node.name}") or node.parent is None
        if node.parent is None:
            assert node.kind == LocationKind.WORLD
            assert node.address == ville.world_name
        else:
            assert node.address.startswith(f"{node.parent.address}:"), node.address
            assert depth[LocationKind(node.parent.kind)] == depth[LocationKind(node.kind)] - 1


@pytest.mark.django_db
def test_layer_tiles_map_to_their_nodes(ville: Town) -> None:
    """Every arena tile's block id names that arena; objects and sectors hold their tiles."""
    world = ville.world_name
    arena_by_id = {int(row[0]): f"{world}:{row[2]}:{row[3]}" for row in _legend("arena")}
    sector_by_id = {int(row[0]): f"{world}:{row[2]}" for row in _legend("sector")}
    nodes = {n.address: n for n in ville.locations.all()}
    tiles_of_arena: dict[str, set[int]] = defaultdict(set)
    for index, block in enumerate(ville.arena_layer):
        if block:
            tiles_of_arena[arena_by_id[block]].add(index)
    for address, tiles in tiles_of_arena.items():
        assert set(nodes[address].tiles) == tiles, address
    for index, block in enumerate(ville.sector_layer):
        if block:
            assert index in nodes[sector_by_id[block]].tiles
    for node in nodes.values():
        if node.kind == LocationKind.OBJECT:
            assert node.tiles
            parent_tiles = set(nodes[node.address.rsplit(":", 1)[0]].tiles)
            assert set(node.tiles) <= parent_tiles, node.address
            assert all(ville.game_object_layer[t] for t in node.tiles), node.address


@pytest.mark.django_db
def test_bad_meta_is_a_format_error(tmp_path: Path) -> None:
    (tmp_path / "matrix").mkdir()
    (tmp_path / "matrix" / "maze_meta_info.json").write_text("{}")
    with pytest.raises(TownFormatError, match="maze_width"):
        town_import(source=tmp_path, name="broken")


@pytest.mark.django_db
def test_short_legend_row_is_a_format_error(tmp_path: Path) -> None:
    shutil.copytree(SOURCE, tmp_path / "town")
    legend = tmp_path / "town" / "matrix" / "special_blocks" / "arena_blocks.csv"
    legend.write_text(legend.read_text() + "\n32999, the Ville")
    with pytest.raises(TownFormatError, match=r"arena_blocks\.csv, row 64"):
        town_import(source=tmp_path / "town", name="broken")
    assert not Town.objects.filter(name="broken").exists()


@pytest.mark.django_db
def test_import_and_export_commands(ville: Town, tmp_path: Path) -> None:
    out = io.StringIO()
    call_command("import_town", str(SOURCE), "--name", "ville_cmd", stdout=out)
    text = out.getvalue()
    town = Town.objects.get(name="ville_cmd")
    arenas = Location.objects.filter(town=town, kind=LocationKind.ARENA).count()
    assert "19 sectors" in text
    assert f"{arenas} arenas" in text
    walkable = sum(1 for v in town.collision if v == 0)
    assert f"{walkable} walkable tiles" in text

    out = io.StringIO()
    call_command("export_town", "ville_cmd", str(tmp_path / "out"), stdout=out)
    assert "Exported 'ville_cmd'" in out.getvalue()
    for path in (SOURCE / "matrix").rglob("*.csv"):
        exported = tmp_path / "out" / path.relative_to(SOURCE)
        assert exported.read_bytes() == path.read_bytes()


@pytest.mark.django_db
def test_import_command_defaults_to_the_shipped_ville(ville: Town) -> None:
    out = io.StringIO()
    call_command("import_town", stdout=out)
    assert "Imported 'the_ville'" in out.getvalue()


@pytest.mark.django_db
def test_command_errors(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="no such folder"):
        call_command("import_town", str(tmp_path / "missing"))
    with pytest.raises(CommandError, match=r"maze_meta_info\.json"):
        call_command("import_town", str(tmp_path), "--name", "empty")
    with pytest.raises(CommandError, match="unknown town 'atlantis'"):
        call_command("export_town", "atlantis", str(tmp_path / "out"))


@pytest.mark.django_db(transaction=True)
def test_simultaneous_first_uses_of_a_shipped_town_import_it_once() -> None:
    """Creates of a base whose town is not imported yet, made at once, all get the town
    (they raised IntegrityError on the town's name, a 500, before the first use locked)."""
    Town.objects.filter(name="the_ville").delete()
    start = threading.Barrier(4)
    got: list[int] = []
    errors: list[BaseException] = []

    def first_use() -> None:
        try:
            start.wait()
            got.append(town_get_or_import("the_ville").pk)
        except BaseException as exc:  # reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=first_use) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(set(got)) == 1 and len(got) == 4
    assert Town.objects.filter(name="the_ville").count() == 1
