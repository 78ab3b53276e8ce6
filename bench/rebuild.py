"""Rebuild equals live: a simulation's projections recreated from its log alone equal the
ones its run left: `python -m bench rebuild --simulation N` (the simulation's own
projections are rebuilt in place: they are the log's by design, and equal ones say so)."""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from typing import Any

from bench.latency import log_digest
from bench.machine import stamp
from world.eventlog import simulation_rebuild, simulation_snapshot
from world.models import Simulation


def _digest(snapshot: dict[str, Any]) -> str:
    text = json.dumps(snapshot, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench rebuild", description=__doc__)
    parser.add_argument("--simulation", type=int, required=True)
    args = parser.parse_args(argv)
    live = Simulation.objects.get(pk=args.simulation)
    started = time.monotonic()
    before = simulation_snapshot(simulation=live)
    simulation_rebuild(simulation=live)
    rebuilt = simulation_snapshot(simulation=live)
    print(
        json.dumps(
            {
                **stamp(),
                "simulation": live.pk,
                "steps": live.step,
                "log_digest": log_digest(live),
                "projections": sorted(rebuilt),
                "live_digest": _digest(before),
                "rebuilt_digest": _digest(rebuilt),
                "rebuild_equals_live": before == rebuilt,
                "seconds": round(time.monotonic() - started, 1),
            },
            indent=2,
        )
    )
