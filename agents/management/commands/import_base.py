"""`manage.py import_base FILE [--owner USER] [--replace]`: a base file (JSON) becomes a base."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandError

from agents.bases.format import MAX_DOCUMENT_BYTES, BaseInvalid
from agents.bases.services import base_create, base_update
from world.models import Base


class Command(BaseCommand):
    help = "Import a base file (docs/authoring.md) as a base of a user."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("file", type=Path)
        parser.add_argument("--owner", required=True, help="the username that will own it")
        parser.add_argument(
            "--replace", action="store_true", help="replace the owner's base of the same name"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["file"]
        if path.stat().st_size > MAX_DOCUMENT_BYTES:
            raise CommandError(f"{path} is over {MAX_DOCUMENT_BYTES:,} bytes")
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError) as exc:
            raise CommandError(f"{path}: not JSON ({exc})") from exc
        owner = User.objects.filter(username=options["owner"]).first()
        if owner is None:
            raise CommandError(f"no user {options['owner']!r}")
        existing = None
        if options["replace"] and isinstance(data, dict):
            name = data.get("name")
            existing = Base.objects.filter(owner=owner, name__iexact=str(name)).first()
        try:
            if existing is not None:
                base = base_update(base=existing, data=data)
            else:
                base = base_create(owner=owner, data=data)
        except BaseInvalid as exc:
            raise CommandError(
                "\n".join(f"{field}: {' '.join(m)}" for field, m in exc.errors.items())
            ) from exc
        self.stdout.write(f"base #{base.pk} {base.name!r}: {len(base.residents)} residents")
