"""`manage.py experiment`: define an experiment from a JSON file, start, watch, pause,
resume or cancel it, and write its report (docs/experiments.md). The runs go to the Celery
workers (`make worker`); `watch` only reads."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandError, CommandParser

from experiments.definition import DefinitionInvalid
from experiments.models import Experiment, ExperimentStatus
from experiments.report import report_files
from experiments.selectors import experiment_progress
from experiments.services import (
    ExperimentConflict,
    experiment_cancel,
    experiment_create,
    experiment_pause,
    experiment_resume,
    experiment_start,
)

ENDED = (ExperimentStatus.DONE, ExperimentStatus.CANCELLED)


class Command(BaseCommand):
    help = "Define, run, watch and report experiments (variants x seeds of simulations)."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="verb", required=True)
        create = sub.add_parser("create", help="define one from a JSON file")
        create.add_argument("file", type=Path)
        create.add_argument("--user", required=True, help="the owner's username")
        create.add_argument("--start", action="store_true", help="and start it")
        for verb in ("start", "pause", "resume", "cancel", "status"):
            sub.add_parser(verb).add_argument("experiment", type=int)
        watch = sub.add_parser("watch", help="print progress until it ends")
        watch.add_argument("experiment", type=int)
        watch.add_argument("--every", type=float, default=10.0, help="seconds between lines")
        report = sub.add_parser("report", help="write the report's files")
        report.add_argument("experiment", type=int)
        report.add_argument("--out", type=Path, required=True, help="a directory")

    def handle(self, *args: Any, **options: Any) -> None:
        verb = options["verb"]
        if verb == "create":
            self._create(options)
            return
        experiment = Experiment.objects.filter(pk=options["experiment"]).first()
        if experiment is None:
            raise CommandError(f"no experiment {options['experiment']}")
        controls = {
            "start": experiment_start,
            "pause": experiment_pause,
            "resume": experiment_resume,
            "cancel": experiment_cancel,
        }
        try:
            if verb in controls:
                controls[verb](experiment=experiment)
                self._status(experiment)
            elif verb == "status":
                self._status(experiment)
            elif verb == "watch":
                self._watch(experiment, options["every"])
            else:
                self._report(experiment, options["out"])
        except ExperimentConflict as exc:
            raise CommandError(str(exc)) from None

    def _create(self, options: dict[str, Any]) -> None:
        owner = User.objects.filter(username=options["user"]).first()
        if owner is None:
            raise CommandError(f"no user {options['user']!r}")
        try:
            data = json.loads(options["file"].read_text())
            experiment = experiment_create(owner=owner, data=data)
        except (OSError, json.JSONDecodeError) as exc:
            raise CommandError(f"{options['file']}: {exc}") from None
        except DefinitionInvalid as exc:
            raise CommandError(f"the definition's {exc.field}: {exc.message}") from None
        self.stdout.write(f"experiment {experiment.pk}: {experiment.runs.count()} runs")
        if options["start"]:
            experiment_start(experiment=experiment)
            self._status(experiment)

    def _status(self, experiment: Experiment) -> None:
        experiment.refresh_from_db()
        p = experiment_progress(experiment=experiment)
        rate = f", {p.steps_per_second:.1f} steps/s" if p.steps_per_second else ""
        left = f", ~{p.seconds_left / 60:.0f} min left" if p.seconds_left else ""
        counts = ", ".join(f"{n} {s}" for s, n in p.by_status.items() if n)
        self.stdout.write(
            f"experiment {experiment.pk} {experiment.status}: runs {counts}; "
            f"{p.steps_done:,} of {p.steps_total:,} steps{rate}{left}"
        )

    def _watch(self, experiment: Experiment, every: float) -> None:
        while True:
            self._status(experiment)
            if experiment.status in ENDED:
                return
            time.sleep(every)

    def _report(self, experiment: Experiment, out: Path) -> None:
        if experiment.status != ExperimentStatus.DONE:
            raise CommandError(f"experiment {experiment.pk} is {experiment.status}, not done")
        for path in report_files(experiment=experiment, directory=out):
            self.stdout.write(str(path))
