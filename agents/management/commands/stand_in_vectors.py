"""Write the offline stand-in's example vectors (agents/offline/examples/vectors/) for the
in-process embedder: run after editing an example set, and commit what it writes.
`--check` only says which sets' shipped vectors are stale (exit status 1 if any)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from agents.offline.meaning import example_vectors_stale, example_vectors_write


class Command(BaseCommand):
    help = "Compute and write the offline stand-in's example vectors (after editing examples)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--check", action="store_true", help="write nothing; fail if stale")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["check"]:
            stale = example_vectors_stale()
            if stale:
                raise CommandError(
                    f"stale example vectors: {', '.join(stale)} (run manage.py stand_in_vectors)"
                )
            self.stdout.write("the shipped example vectors are current")
            return
        for path in example_vectors_write():
            self.stdout.write(f"wrote {path}")
