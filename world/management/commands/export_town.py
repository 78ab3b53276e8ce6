"""`manage.py export_town`: write a stored town back to a folder in the reference format,
or (`--tiled`) to a Tiled map file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db.models import F

from world.models import Town
from world.tiledexport import town_to_tiled
from world.towns import town_export


class Command(BaseCommand):
    help = "Export a town to TARGET_DIR (matrix/maze_meta_info.json, maze/, special_blocks/)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", help="town name, e.g. the_ville")
        parser.add_argument("target", type=Path, help="folder to write (created if missing)")
        parser.add_argument(
            "--tiled", action="store_true", help="write TARGET as a Tiled map (.tmj) instead"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        name: str = options["name"]
        target: Path = options["target"]
        # A shipped town before a user's of the same name.
        town = Town.objects.filter(name=name).order_by(F("owner").asc(nulls_first=True)).first()
        if town is None:
            known = ", ".join(Town.objects.values_list("name", flat=True)) or "none"
            raise CommandError(f"unknown town {name!r} (towns: {known})")
        if not options["tiled"] and target.exists() and not target.is_dir():
            raise CommandError(f"{target} exists and is not a folder")
        try:
            if options["tiled"]:
                target.write_text(json.dumps(town_to_tiled(town=town)))
            else:
                town_export(town=town, target=target)
        except OSError as exc:
            raise CommandError(f"cannot write {target}: {exc}") from exc
        self.stdout.write(f"Exported '{town.name}' to {target}")
