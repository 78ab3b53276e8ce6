"""`manage.py import_town`: load a town folder in the reference format into the database."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from world.models import Location, LocationKind
from world.paths import grid_stats
from world.towns import DATA_DIR, THE_VILLE, TownFormatError, town_import


class Command(BaseCommand):
    help = "Import (or replace) a town from a folder holding matrix/maze_meta_info.json."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "source",
            nargs="?",
            type=Path,
            default=DATA_DIR / THE_VILLE,
            help="town folder (default: the shipped the_ville)",
        )
        parser.add_argument("--name", default=THE_VILLE, help="town name (slug)")

    def handle(self, *args: Any, **options: Any) -> None:
        source: Path = options["source"]
        if not source.is_dir():
            raise CommandError(f"no such folder: {source}")
        try:
            town = town_import(source=source, name=options["name"])
        except TownFormatError as exc:
            raise CommandError(f"cannot import {source}: {exc}") from exc
        counts = {
            kind: Location.objects.filter(town=town, kind=kind).count()
            for kind in (LocationKind.SECTOR, LocationKind.ARENA, LocationKind.OBJECT)
        }
        stats = grid_stats(town=town)
        self.stdout.write(
            f"Imported '{town.name}' ({town.world_name}, {town.width}x{town.height} tiles): "
            f"{counts[LocationKind.SECTOR]} sectors, {counts[LocationKind.ARENA]} arenas, "
            f"{counts[LocationKind.OBJECT]} objects, {stats.walkable} walkable tiles "
            f"({stats.areas} connected areas, largest {stats.largest_area})"
        )
