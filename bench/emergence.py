"""The paper's emergent social behaviour, measured: `python -m bench emergence [--hours H]`.

Runs base_the_ville_n25 with the paper's cognition and the offline backend from
2023-02-13 00:00 for `--hours` sim hours (48: the paper's two days, 17,280 steps)
through a real Celery worker (`--simulation ID` measures an existing simulation instead;
`--ablations no_reflection,...` runs one of the paper's ablations; `--start ISO` starts
elsewhere; `--local-model` runs it through the `openai` backend on the local
SmolLM2-135M server, `make install-local`), and reports what the paper reports (Park et
al. 2023, section 7): the diffusion of the base's named facts, its named events'
attendance (the Ville's: the party and the candidacy, agents/bases/data/reference) and
network density, as evaluations/emergence.py defines and measures them (one copy, shared with
the evaluations), the memories with a line of word statistics ("X associates A with B",
"A and B often go together": the old offline reflections' shapes; none expected), and

Model calls and tokens per agent per sim hour, by task (the offline backend counts the
prompts the openai backend would send), against the targets.

The numbers are the offline backend's: rules that pass the most important thing one
knows on and go when invited (agents/offline/news.py), so they show that the
mechanics (memos, sources, commitments, plans, walking there) work, not what a language
model would do with them.
"""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime
from typing import Any

from django.contrib.auth.models import User
from django.test.utils import override_settings

from agents.services import simulation_create_from_base
from bench.cognition import usage
from bench.machine import stamp
from bench.runs import bench_owner, run_through_worker
from evaluations.emergence import PAPER_DENSITY, emergence_measure, remembered, word_statistics
from evaluations.named import measures_resolve
from llm.local import LocalModelServer
from llm.selectors import model_call_fallback_rate
from world.models import Simulation

N25 = "base_the_ville_n25"
START = datetime(2023, 2, 13, 0, 0, tzinfo=UTC)


def run(
    owner: User,
    hours: float,
    ablations: list[str],
    start: datetime = START,
    worker_env: dict[str, str] | None = None,
    wall_limit: float | None = None,
    base: str = N25,
) -> tuple[Simulation, float]:
    simulation = simulation_create_from_base(
        owner=owner,
        base=base,
        seed=3,
        name=f"bench emergence {hours:g}h {' '.join(ablations)}".strip(),
        config={"cognition": "paper", "ablations": ablations},
        start_time=start,
    )
    steps = int(hours * 3600 / simulation.sec_per_step)
    elapsed = run_through_worker(simulation, steps, env=worker_env, wall_limit=wall_limit)
    return simulation, elapsed


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench emergence", description=__doc__)
    parser.add_argument("--hours", type=float, default=48.0)
    parser.add_argument("--simulation", type=int, default=None, help="measure, do not run")
    parser.add_argument(
        "--ablations", default="", help="comma-separated, e.g. no_reflection (none by default)"
    )
    parser.add_argument(
        "--start", default=START.isoformat(), help="sim time to start at (ISO, UTC)"
    )
    parser.add_argument(
        "--base",
        default=N25,
        help="the town's residents (base_the_ville_isabella_maria_klaus for a short run)",
    )
    parser.add_argument(
        "--wall-limit",
        type=float,
        default=None,
        help="pause the run after this many wall seconds and measure what it reached",
    )
    parser.add_argument(
        "--local-model",
        action="store_true",
        help="run through the openai backend on the local model (make install-local)",
    )
    args = parser.parse_args(argv)
    backend = "openai: local SmolLM2-135M-Instruct" if args.local_model else "offline"
    report: dict[str, Any] = {**stamp(), "backend": backend, "cognition": "paper"}
    wall: float | None = None
    if args.simulation is None:
        owner = bench_owner()
        ablations = [a.strip() for a in args.ablations.split(",") if a.strip()]
        start = datetime.fromisoformat(args.start).replace(tzinfo=UTC)
        if args.local_model:
            with LocalModelServer() as server, override_settings(**server.settings()):
                simulation, wall = run(
                    owner, args.hours, ablations, start, server.env(), args.wall_limit, args.base
                )
        else:
            simulation, wall = run(
                owner, args.hours, ablations, start, None, args.wall_limit, args.base
            )
    else:
        simulation = Simulation.objects.get(pk=args.simulation)
    agents = simulation.agents.count()
    hours = simulation.step * simulation.sec_per_step / 3600
    report["run"] = {
        "simulation": simulation.pk,
        "base": args.base if args.simulation is None else None,
        "config": simulation.config,
        "status": simulation.status,
        "reason": simulation.status_reason,
        "start": simulation.start_time.strftime("%Y-%m-%d %H:%M"),
        "end": simulation.sim_time.strftime("%Y-%m-%d %H:%M"),
        "steps": simulation.step,
        "sim_hours": round(hours, 2),
        "wall_seconds": None if wall is None else round(wall, 1),
        "wall_limit": args.wall_limit,
        "conversations": simulation.conversations.count(),
        "commitments": simulation.commitments.count(),
    }
    named = measures_resolve(simulation)  # the base's facts and events
    report.update(emergence_measure(simulation=simulation, facts=named.facts, events=named.events))
    report["word_statistics"] = word_statistics(remembered(simulation))
    # The calls of the run: those of rating the seed memories at creation come before it.
    since = simulation.run_started_at or simulation.created_at
    report["model_usage"] = usage(simulation, agents, hours or 1.0, since)
    report["model_usage"]["fallback_rate"] = model_call_fallback_rate(simulation=simulation)
    report["paper"] = {
        **{f.text: f.published for f in named.facts if f.published},
        **{e.what: e.published for e in named.events if e.published},
        "network_density": PAPER_DENSITY,
    }
    report["note"] = (
        "local SmolLM2-135M: a 135M-parameter model on a CPU, a floor, not the paper's GPT-3.5"
        if args.local_model
        else "offline backend: rules, not a model; the numbers show the mechanics of the "
        "social loop (memos with sources, commitments, plans citing them, walking there), "
        "not what a language model would make of them"
    )
    print(json.dumps(report, indent=2, default=str))
