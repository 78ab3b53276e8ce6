"""An evaluation of a finished run, timed: `python -m bench evaluation [--simulation ID]
[--kind K ...] [--figures DIR]`.

Evaluates the newest finished base_the_ville_n25 simulation (or `--simulation ID`) with
every kind (or those given) through the same runner as `manage.py evaluate`, and reports
the wall time and the model calls and tokens the evaluation made, by task (the interviews,
the judge, "Do you know <name>?" and "Did you hear that ...?"), each named fact's holders
by memory and by interview and their agreement, and the memories of the word-statistics
shapes ("X associates A with B"). With `--figures` the
report's PNGs are written there, with `--report` its HTML page. Offline numbers show
mechanics.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from django.db.models import Count, Sum
from django.test.utils import override_settings
from django.utils import timezone

from bench.machine import stamp
from evaluations.conditions import Condition
from evaluations.emergence import remembered, word_statistics
from evaluations.report import report_figures, report_html
from evaluations.runner import evaluation_run
from evaluations.services import evaluation_create
from llm.local import LocalModelServer
from llm.models import ModelCall
from world.models import Simulation


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench evaluation", description=__doc__)
    parser.add_argument("--simulation", type=int, default=None)
    parser.add_argument("--kind", action="append", dest="kinds", default=None)
    parser.add_argument("--figures", type=Path, default=None, help="write the PNGs here")
    parser.add_argument("--report", type=Path, default=None, help="write the HTML page here")
    parser.add_argument(
        "--condition",
        action="append",
        dest="conditions",
        default=None,
        help="the conditions to interview under (all four by default)",
    )
    parser.add_argument(
        "--local-model",
        action="store_true",
        help="interview and judge with the local model (make install-local)",
    )
    args = parser.parse_args(argv)
    if args.simulation is None:
        simulation = (
            Simulation.objects.filter(name__contains="emergence", status__in=["idle", "finished"])
            .filter(step__gte=17_280)
            .order_by("-pk")
            .first()
        )
        if simulation is None:
            raise SystemExit("no finished two-day n25 run; give --simulation ID")
    else:
        simulation = Simulation.objects.get(pk=args.simulation)
    kinds = args.kinds or [
        "interviews",
        "diffusion",
        "relationships",
        "coordination",
        "hallucination",
    ]
    since = timezone.now()
    started = time.perf_counter()
    conditions = args.conditions or list(Condition.values)
    created = evaluation_create(simulation=simulation, kinds=kinds, conditions=conditions)
    if args.local_model:
        with LocalModelServer() as server, override_settings(**server.settings()):
            evaluation = evaluation_run(evaluation=created)
    else:
        evaluation = evaluation_run(evaluation=created)
    wall = time.perf_counter() - started
    calls = (  # charged to what was measured: the simulation, or its fork at the step
        ModelCall.objects.filter(simulation=evaluation.subject or simulation, created_at__gte=since)
        .values("task")
        .annotate(
            calls=Count("id"), prompt=Sum("prompt_tokens"), completion=Sum("completion_tokens")
        )
    )
    report: dict[str, Any] = {
        **stamp(),
        "simulation": simulation.pk,
        "steps": simulation.step,
        "residents": simulation.agents.count(),
        "evaluation": evaluation.number,
        "kinds": kinds,
        "conditions": conditions,
        "backend": "openai: local SmolLM2-135M-Instruct" if args.local_model else "offline",
        "wall_seconds": round(wall, 2),
        "model_calls_by_task": {c["task"]: c for c in calls},
        # Per named fact: holders by memory, by interview ("Did you hear that ...?") and
        # their agreement; and the memories of the word-statistics shapes.
        "facts_agreement": {
            f["fact"]: f["agreement"]
            for f in evaluation.result.get("diffusion", {}).get("facts", [])
        },
        "word_statistics": word_statistics(remembered(evaluation.subject or simulation)),
        "result": evaluation.result,
    }
    if args.figures is not None:
        args.figures.mkdir(parents=True, exist_ok=True)
        for name, png in report_figures(evaluation=evaluation).items():
            (args.figures / name).write_bytes(png)
    if args.report is not None:
        args.report.write_text(report_html(evaluation=evaluation), encoding="utf-8")
    print(json.dumps(report, indent=2, default=str))
