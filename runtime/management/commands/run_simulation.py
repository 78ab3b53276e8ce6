"""`manage.py run_simulation ID --steps N | --until TIME`: run through the workers with progress."""

from __future__ import annotations

import sys
import time
from datetime import UTC, datetime
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from runtime.engine import (
    Progress,
    RunRefused,
    simulation_progress,
    simulation_run,
    simulation_run_inline,
)
from world.models import Simulation, SimulationStatus


def _sim_time(text: str) -> datetime:
    """A sim time; one without a zone is UTC, as sim times are stored."""
    at = datetime.fromisoformat(text)
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


class Command(BaseCommand):
    help = "Run a simulation N steps or until a sim time, showing progress until it stops."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("simulation", type=int)
        group = parser.add_mutually_exclusive_group(required=True)
        group.add_argument("--steps", type=int)
        group.add_argument(
            "--until", type=_sim_time, help="ISO sim time (UTC when it names no zone)"
        )
        parser.add_argument(
            "--inline", action="store_true", help="run in this process, without workers"
        )
        parser.add_argument("--timeout", type=float, default=None, help="give up after seconds")

    def handle(self, *args: Any, **options: Any) -> None:
        simulation = Simulation.objects.filter(pk=options["simulation"]).first()
        if simulation is None:
            raise CommandError(f"no simulation {options['simulation']}")
        try:
            if options["inline"]:
                simulation_run_inline(
                    simulation=simulation, steps=options["steps"], until=options["until"]
                )
            else:
                simulation_run(
                    simulation=simulation, steps=options["steps"], until=options["until"]
                )
        except RunRefused as exc:
            raise CommandError(str(exc)) from exc
        self._follow(simulation, options["timeout"])

    def _follow(self, simulation: Simulation, timeout: float | None) -> None:
        started = time.monotonic()
        while True:
            progress = simulation_progress(simulation=simulation)
            self._bar(progress.step, progress.target_step or progress.step, progress)
            if progress.status != SimulationStatus.RUNNING:
                break
            if timeout is not None and time.monotonic() - started > timeout:
                raise CommandError(f"still running after {timeout:.0f} s (is a worker up?)")
            time.sleep(0.5)
        sys.stdout.write("\n")
        if progress.status in (SimulationStatus.FAILED, SimulationStatus.BUDGET_EXHAUSTED):
            raise CommandError(f"{progress.status}: {progress.reason}")
        self.stdout.write(f"{progress.status}: {progress.reason}")

    def _bar(self, step: int, target: int, progress: Progress) -> None:
        width = 30
        filled = min(width, int(width * step / target)) if target else width
        rate = progress.agent_steps_per_second
        sys.stdout.write(
            f"\r[{'#' * filled}{'.' * (width - filled)}] step {step}/{target} "
            f"{progress.sim_time:%Y-%m-%d %H:%M:%S} "
            + (f"{rate:.0f} agent-steps/s " if rate else "")
            + f"{progress.model_calls} model calls    "
        )
        sys.stdout.flush()
