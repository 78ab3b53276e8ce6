"""The stand-in in worlds no file describes: `python -m bench generality [--worlds N]`.

Each world is generated from a seed (bench/generality/world.py: a town of homes,
workplaces, places to eat and shop; residents whose identity states their hours and
workplace in one of many phrasings; news of distinct kinds whispered or announced; two
whispered intentions with a time and a place; questions about the news and the plan),
made through the services a user's REST calls use, run in this process from midnight
for `--hours` sim hours (24: the whole day) with the paper's cognition on the offline
backend, and interviewed: about the plan at 10:00, about the news at the end.

It reports, over all worlds, one JSON object: wake-time adherence, workplace adherence
in stated hours, news reach among residents who talked with a holder, interview
agreement with memory (and false claims), plan questions answered with the plan's place,
whispered intentions in the next plan, each with its numerator and denominator
(bench/generality/measure.py says how each is judged), plus wall time, worlds, seed and
machine. `--simulations ID,...` measures simulations this bench made earlier instead;
`--routines N` only reads N worlds' identities as the stand-in does (bench/generality/
routines.py: wake, work hours and workplace against the truth, no run, about a minute).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

from django.db.models import Max

from bench.generality.measure import empty, figures
from bench.generality.record import record_read
from bench.generality.routines import routines_read
from bench.generality.run import world_live
from bench.generality.world import World, world_make
from bench.machine import stamp
from bench.runs import bench_owner
from world.models import Simulation


def world_of(simulation: Simulation) -> World:
    """The generated world a simulation of this bench lives (its seed names it)."""
    world = world_make(simulation.seed)
    if not simulation.base.startswith(f"generality {world.name}"):
        raise SystemExit(
            f"simulation {simulation.pk} is not of world {world.name} (base {simulation.base!r})"
        )
    return world


def _lived_seconds(simulation: Simulation) -> float | None:
    """Wall seconds from the simulation's creation to its last event (its interviews)."""
    last = simulation.events.aggregate(last=Max("created_at"))["last"]
    return None if last is None else (last - simulation.created_at).total_seconds()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench generality", description=__doc__)
    parser.add_argument("--worlds", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0, help="the first world's seed")
    parser.add_argument("--hours", type=float, default=24.0, help="sim hours from midnight")
    parser.add_argument("--sec-per-step", type=int, default=60)
    parser.add_argument("--simulations", default="", help="measure these, do not run")
    parser.add_argument(
        "--routines", type=int, default=0, help="read N worlds' identities only (no run)"
    )
    args = parser.parse_args(argv)
    if args.routines:
        read = routines_read(range(args.seed, args.seed + args.routines))
        about = {"worlds": args.routines, "seed": args.seed, "backend": "offline"}
        print(json.dumps({**stamp(), **about, "routines": read}, indent=2, default=str))
        return
    started = time.perf_counter()
    total = empty()
    worlds: list[dict[str, Any]] = []
    pairs: list[tuple[World, Simulation, float | None]] = []
    if args.simulations:
        for pk in (int(p) for p in args.simulations.split(",") if p.strip()):
            simulation = Simulation.objects.get(pk=pk)
            pairs.append((world_of(simulation), simulation, _lived_seconds(simulation)))
    else:
        owner, tag = bench_owner(), f"_{int(time.time())}"
        for seed in range(args.seed, args.seed + args.worlds):
            world = world_make(seed)
            lived = world_live(
                world, owner=owner, hours=args.hours, sec_per_step=args.sec_per_step, tag=tag
            )
            pairs.append((world, lived.simulation, lived.wall))
            print(f"world {seed}: {lived.wall:.0f} s", file=sys.stderr)
    for world, simulation, wall in pairs:
        found = figures(world, record_read(simulation))
        total.merge(found)
        worlds.append({
            "seed": world.seed, "world": world.world, "simulation": simulation.pk,
            "residents": len(world.people), "steps": simulation.step,
            "news": [item.kind.kind for item in world.news],
            "wall_seconds": None if wall is None else round(wall, 1),
            "figures": {k: v.get("share") for k, v in found.report().items()},
        })  # fmt: skip
    report: dict[str, Any] = {
        **stamp(),
        "backend": "offline",
        "cognition": "paper",
        "worlds": len(worlds),
        "seeds": [w["seed"] for w in worlds],
        "hours": args.hours,
        "sec_per_step": args.sec_per_step,
        "wall_seconds": round(time.perf_counter() - started, 1),
        "load_average": [round(x, 1) for x in os.getloadavg()],
        **total.report(),
        "by_world": worlds,
    }
    print(json.dumps(report, indent=2, default=str))
