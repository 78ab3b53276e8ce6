"""`manage.py import_town`: load a town folder in the reference format into the database, or
a town file (a `smallville-town/1` grid or a Tiled map), public or a user's (`--owner`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandError, CommandParser

from world.models import Location, LocationKind, Town
from world.paths import grid_stats
from world.townbuild import town_create
from world.towns import DATA_DIR, THE_VILLE, TownFormatError, town_import


class Command(BaseCommand):
    help = (
        "Import (or replace) a town from a folder holding matrix/maze_meta_info.json, or "
        "create one from a town file (.json grid, .tmj Tiled map)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "source",
            nargs="?",
            type=Path,
            default=DATA_DIR / THE_VILLE,
            help="town folder or file (default: the shipped the_ville)",
        )
        parser.add_argument("--name", default=THE_VILLE, help="a folder's town name (slug)")
        parser.add_argument("--owner", help="a file's town belongs to this user (else public)")

    def handle(self, *args: Any, **options: Any) -> None:
        source: Path = options["source"]
        if source.is_file():
            town = self._from_file(source, options["owner"])
        elif not source.is_dir():
            raise CommandError(f"no such folder or file: {source}")
        else:
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

    def _from_file(self, source: Path, username: str | None) -> Town:
        if source.stat().st_size > settings.SMALLVILLE_MAX_TOWN_BYTES:
            raise CommandError(f"{source} is over {settings.SMALLVILLE_MAX_TOWN_BYTES:,} bytes")
        owner = None
        if username is not None:
            owner = User.objects.filter(username=username).first()
            if owner is None:
                raise CommandError(f"no user {username!r}")
        try:
            return town_create(owner=owner, data=json.loads(source.read_text()))
        except ValueError as exc:  # TownInvalid, or JSON that does not parse
            raise CommandError(f"cannot import {source}: {exc}") from exc
