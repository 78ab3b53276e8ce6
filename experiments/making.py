"""Making a run's simulation: a new town of its variant's base with the run's seed, or a
fork of the start's step with the run's seed; then the variant's changes that a user makes
over REST (scenarios added or cancelled, model routes), so a run can be repeated by hand."""

from __future__ import annotations

import copy
from datetime import datetime
from typing import Any

from agents.bases.services import base_create, base_document
from agents.models import Scenario
from agents.services import simulation_create_from_base, simulation_fork_checked
from llm.profile_services import simulation_models_set
from runtime.scenarios import scenario_add, scenario_cancel
from world.models import Base as BaseRow
from world.models import Simulation

from .models import Experiment, ExperimentRun

MAX_BASE_NAME = 100


def variant_edits_base(variant: dict[str, Any]) -> bool:
    memories, scenarios = variant["seed_memories"], variant["scenarios"]
    return bool(memories["remove"] or memories["add"] or scenarios["add"] or scenarios["cancel"])


def variant_base_document(
    base: dict[str, Any], variant: dict[str, Any], name: str
) -> dict[str, Any]:
    """The start's base document with the variant's seed memories and scenarios edited."""
    document = copy.deepcopy(base)
    document["name"] = name
    by_name = {r["name"]: r for r in document["residents"]}
    for left in variant["seed_memories"]["remove"]:
        resident = by_name[left["resident"]]
        words = left["containing"].lower()
        resident["seed_memories"] = [
            m for m in resident.get("seed_memories", []) if words not in m.lower()
        ]
    for added in variant["seed_memories"]["add"]:
        by_name[added["resident"]].setdefault("seed_memories", []).append(added["memory"])
    cancelled = set(variant["scenarios"]["cancel"])
    kept = [s for i, s in enumerate(document.get("scenarios", []), 1) if i not in cancelled]
    document["scenarios"] = [*kept, *variant["scenarios"]["add"]]
    return document


def variant_bases_make(*, experiment: Experiment) -> list[int | None]:
    """Per variant, the base its runs start from (None for a counterfactual's): the start's,
    or a base of the owner's made from it with the variant's edits, under a name none of
    the owner's bases has."""
    definition = experiment.definition
    start = definition["start"]
    if start.get("base") is None:
        return [None for _ in definition["variants"]]
    origin = BaseRow.objects.get(pk=start["base"])
    bases: list[int | None] = []
    for variant in definition["variants"]:
        if not variant_edits_base(variant):
            bases.append(origin.pk)
            continue
        name = _free_name(experiment, f"{origin.name} ({experiment.name}: {variant['name']})")
        document = variant_base_document(base_document(base=origin), variant, name)
        bases.append(base_create(owner=experiment.owner, data=document).pk)
    return bases


def _free_name(experiment: Experiment, wanted: str) -> str:
    taken = BaseRow.objects.filter(owner=experiment.owner)
    stem = wanted[: MAX_BASE_NAME - 16]
    name, number = f"{stem} #{experiment.pk}", 2
    while taken.filter(name__iexact=name).exists():
        name, number = f"{stem} #{experiment.pk}-{number}", number + 1
    return name


def run_simulation_name(run: ExperimentRun) -> str:
    variant = run.experiment.definition["variants"][run.variant]["name"]
    return f"{run.experiment.name}: {variant}, seed {run.seed} [{run.label}]"[-200:]


def run_simulation_make(*, run: ExperimentRun) -> Simulation:
    """The run's simulation, made and changed as its variant says (not yet running)."""
    experiment = run.experiment
    definition = experiment.definition
    variant = definition["variants"][run.variant]
    start = definition["start"]
    name = run_simulation_name(run)
    if start.get("base") is not None:
        simulation = simulation_create_from_base(
            owner=experiment.owner,
            base=experiment.variant_bases[run.variant],
            name=name,
            seed=run.seed,
            config=variant["config"],
        )
    else:
        parent = Simulation.objects.get(pk=start["simulation"], owner=experiment.owner)
        simulation = simulation_fork_checked(
            simulation=parent,
            step=start["step"],
            name=name,
            owner=experiment.owner,
            seed=run.seed,
            config=variant["config"],
        )
        _fork_scenarios(simulation, variant)
    if variant["models"]:
        simulation_models_set(simulation=simulation, routes=variant["models"])
    return simulation


def _fork_scenarios(simulation: Simulation, variant: dict[str, Any]) -> None:
    for number in variant["scenarios"]["cancel"]:
        scenario = Scenario.objects.get(simulation=simulation, number=number)
        scenario_cancel(simulation=simulation, scenario=scenario)
    for spec in variant["scenarios"]["add"]:
        params = {k: v for k, v in spec.items() if k not in ("kind", "at") and v is not None}
        at = datetime.fromisoformat(str(spec["at"]).replace("Z", "+00:00"))
        scenario_add(simulation=simulation, kind=spec["kind"], at=at, params=params)
