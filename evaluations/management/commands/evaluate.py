"""`manage.py evaluate <simulation> [--kind ...] [--step N] [--fact TEXT ...] [--report FILE]`:
evaluate a simulation here, with progress; the result as JSON, the report page to a file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from evaluations.conditions import Condition
from evaluations.models import EvaluationKind, EvaluationStatus
from evaluations.report import report_html
from evaluations.runner import evaluation_run
from evaluations.services import EvaluationError, evaluation_create
from world.models import Simulation


class Command(BaseCommand):
    help = "Evaluate a simulation (the paper's sections 6 and 7) and print the result as JSON."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("simulation", type=int)
        parser.add_argument("--kind", action="append", choices=EvaluationKind.values, dest="kinds")
        parser.add_argument(
            "--step", type=int, default=None, help="a past step is measured on a fork at it"
        )
        parser.add_argument(
            "--fact",
            action="append",
            dest="facts",
            default=[],
            help="a clause whose diffusion is asked about (default: the party, the candidacy)",
        )
        parser.add_argument(
            "--report", type=Path, default=None, help="write the report page (HTML) here"
        )
        parser.add_argument("--compare", type=int, action="append", default=[])
        parser.add_argument(
            "--condition", action="append", dest="conditions", choices=Condition.values
        )
        parser.add_argument(
            "--human-answers",
            type=Path,
            default=None,
            help='a JSON file {"<resident name>": {"<question 1-25>": "<answer>"}}',
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            simulation = Simulation.objects.get(pk=options["simulation"])
            compared = [Simulation.objects.get(pk=pk) for pk in options["compare"]]
        except Simulation.DoesNotExist as exc:
            raise CommandError(f"no such simulation: {exc}") from exc
        kinds = options["kinds"] or ["diffusion", "relationships", "coordination"]
        human_answers = None
        if options["human_answers"] is not None:
            try:
                human_answers = json.loads(options["human_answers"].read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise CommandError(f"cannot read the human answers: {exc}") from exc
        try:
            evaluation = evaluation_create(
                simulation=simulation,
                kinds=kinds,
                step=options["step"],
                compared=compared,
                facts=options["facts"],
                conditions=options["conditions"] or Condition.values,
                human_answers=human_answers,
            )
        except EvaluationError as exc:
            raise CommandError(str(exc)) from exc

        def bar(done: int, total: int) -> None:
            filled = 30 * done // total
            self.stderr.write(f"\r[{'#' * filled}{'.' * (30 - filled)}] {done}/{total}", ending="")

        evaluation = evaluation_run(evaluation=evaluation, progress=bar)
        self.stderr.write("")
        self.stdout.write(json.dumps({"number": evaluation.number, **evaluation.result}, indent=2))
        if options["report"] is not None and evaluation.status == EvaluationStatus.DONE:
            options["report"].write_text(report_html(evaluation=evaluation), encoding="utf-8")
            self.stderr.write(f"report: {options['report']}")
