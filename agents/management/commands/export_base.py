"""`manage.py export_base ID|NAME [--output FILE]`: a base as a base file (JSON)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from agents.bases.services import base_document, base_shipped, shipped_names
from world.models import Base


class Command(BaseCommand):
    help = "Write a base (by id, or a shipped base's name) as a base file."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("base")
        parser.add_argument("--output", type=Path, help="default: standard output")

    def handle(self, *args: Any, **options: Any) -> None:
        ref: str = options["base"]
        if ref in shipped_names():
            base = base_shipped(ref)
        else:
            found = Base.objects.filter(pk=int(ref)).first() if ref.isdigit() else None
            if found is None:
                raise CommandError(f"no base {ref!r}: give an id or a shipped base's name")
            base = found
        text = json.dumps(base_document(base=base), indent=1, ensure_ascii=False) + "\n"
        if options["output"]:
            options["output"].write_text(text)
        else:
            self.stdout.write(text, ending="")
