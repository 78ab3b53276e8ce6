"""Each run's twin made by hand, as a user would over REST: the same base, seed and config,
run in this process; and the logs to compare."""

from __future__ import annotations

from typing import Any

from rest_framework.test import APIClient

from experiments.models import Experiment, ExperimentRun
from runtime import engine
from world.models import Event, Simulation


def log_of(simulation: Simulation) -> list[tuple[Any, ...]]:
    """The log after `simulation.created` (which names the simulation)."""
    return list(
        Event.objects.filter(simulation=simulation, seq__gt=1)
        .order_by("seq")
        .values_list("seq", "step", "sim_time", "kind", "agent", "payload")
    )


def twin_of(api: APIClient, run: ExperimentRun, steps: int | None = None) -> Simulation:
    experiment: Experiment = run.experiment
    variant = experiment.definition["variants"][run.variant]
    body = {
        "base": experiment.variant_bases[run.variant],
        "seed": run.seed,
        "config": variant["config"],
    }
    made = api.post("/api/simulations/", body, format="json")
    assert made.status_code == 201, made.content
    simulation = Simulation.objects.get(pk=made.json()["id"])
    span = experiment.definition["span"]["steps"] if steps is None else steps
    return engine.simulation_run_inline(simulation=simulation, steps=span)
