"""Writes on experiments: define, start, advance (make and start runs up to the limit,
settle those that ended), pause, resume, cancel and delete.

Every step is a conditional update or happens under the experiment's row lock, and
`experiment_advance` may run anywhere at any time (a run's end sends it, every worker's
watchdog sends it): two at once make no more runs than the limit and settle none twice.
A run being made by a process that died (its process lease lapsed) is made again: its
half-made simulation is deleted first, so every run's log is a whole one."""

from __future__ import annotations

import logging
from contextlib import suppress
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from runtime.engine import (
    RunConflict,
    RunRefused,
    TickDeferred,
    simulation_delete,
    simulation_pause,
    simulation_run,
)
from world.leases import leases_alive, process_holder, process_lease
from world.models import Simulation, SimulationStatus

from .definition import definition_check, span_steps
from .making import run_simulation_make, run_simulation_name, variant_bases_make
from .measures import run_measure
from .models import ACTIVE, Experiment, ExperimentRun, ExperimentStatus, RunStatus
from .stats import results_compute

log = logging.getLogger(__name__)

FAILED_RUN = (SimulationStatus.FAILED, SimulationStatus.BUDGET_EXHAUSTED)


class ExperimentConflict(ValueError):
    """The experiment's status does not allow it (a 409)."""


def experiment_create(*, owner: User, data: Any) -> Experiment:
    """A new experiment from its definition, with a pending run per variant and seed;
    DefinitionInvalid naming the field (nothing written) when the definition is bad."""
    definition = definition_check(owner=owner, data=data)
    with transaction.atomic(durable=True):
        experiment = Experiment.objects.create(
            owner=owner, name=definition["name"], definition=definition
        )
        ExperimentRun.objects.bulk_create(
            ExperimentRun(experiment=experiment, variant=v, seed=seed)
            for v in range(len(definition["variants"]))
            for seed in definition["seeds"]
        )
    return experiment


def experiment_start(*, experiment: Experiment) -> Experiment:
    """Start a pending experiment: its variants' bases are made, then its runs on the
    workers, at most `concurrency` at once."""
    with transaction.atomic(durable=True):
        locked = Experiment.objects.select_for_update().get(pk=experiment.pk)
        if locked.status != ExperimentStatus.PENDING:
            raise ExperimentConflict(f"experiment {experiment.pk} is {locked.status}, not pending")
        locked.variant_bases = variant_bases_make(experiment=locked)
        locked.status = ExperimentStatus.RUNNING
        locked.started_at = timezone.now()
        locked.save(update_fields=["variant_bases", "status", "started_at"])
        _advance_later(locked.pk)
    experiment.refresh_from_db()
    return experiment


def _advance_later(experiment_id: int) -> None:
    from .tasks import experiment_advance_later  # the task module imports this one

    experiment_advance_later(experiment_id)


def experiment_advance(*, experiment_id: int) -> None:
    """Settle the runs that ended, take over runs whose maker died, make and start runs
    up to the limit, and compute the results once every run ended."""
    experiment = Experiment.objects.get(pk=experiment_id)
    for running in experiment.runs.filter(status=RunStatus.RUNNING).select_related("simulation"):
        running.experiment = experiment  # its definition, read once for all the runs
        _run_settle(running)
    _makers_dead_recover(experiment)
    while (claimed := _run_claim(experiment)) is not None:
        _run_make_and_start(claimed)
    _experiment_finish(experiment)


def _run_claim(experiment: Experiment) -> ExperimentRun | None:
    """The next pending run, marked as being made by this process, if the experiment runs
    and fewer than its limit are under way."""
    with transaction.atomic():
        locked = Experiment.objects.select_for_update().get(pk=experiment.pk)
        if locked.status != ExperimentStatus.RUNNING:
            return None
        active = locked.runs.filter(status__in=ACTIVE).count()
        if active >= locked.definition["concurrency"]:
            return None
        run = locked.runs.filter(status=RunStatus.PENDING).order_by("seed", "variant").first()
        if run is None:
            return None
        run.experiment = locked
        run.status, run.holder = RunStatus.MAKING, process_holder()
        run.started_at = timezone.now()
        run.save(update_fields=["status", "holder", "started_at"])
    return run


def _run_make_and_start(run: ExperimentRun) -> None:
    try:
        simulation = run_simulation_make(run=run)
    except Exception as exc:  # a run that cannot be made fails alone; the others go on
        log.exception("run %s of experiment %s not made", run.pk, run.experiment_id)
        _run_end(run, RunStatus.FAILED, f"its simulation could not be made: {exc}")
        return
    target = simulation.step + _span(run, simulation)
    updated = ExperimentRun.objects.filter(pk=run.pk, status=RunStatus.MAKING).update(
        simulation=simulation, target_step=target, status=RunStatus.RUNNING, holder=""
    )
    if updated and _experiment_status(run.experiment_id) == ExperimentStatus.RUNNING:
        _simulation_go(simulation, target)


def _span(run: ExperimentRun, simulation: Simulation) -> int:
    return span_steps(
        run.experiment.definition,
        start_time=simulation.sim_time,
        sec_per_step=simulation.sec_per_step,
    )


def _experiment_status(experiment_id: int) -> str:
    return str(Experiment.objects.values_list("status", flat=True).get(pk=experiment_id))


def _simulation_go(simulation: Simulation, target: int) -> None:
    """Run the simulation to `target` (from where it stands)."""
    simulation.refresh_from_db()
    if simulation.status == SimulationStatus.RUNNING or simulation.step >= target:
        return
    try:
        simulation_run(simulation=simulation, steps=target - simulation.step)
    except TickDeferred:
        pass  # claimed: the runtime's watchdog sends its tick once the broker is back
    except RunConflict:
        pass  # started meanwhile by another advance


def _run_settle(run: ExperimentRun) -> None:
    """A running run whose simulation reached the span's end is measured; one whose
    simulation failed, or was deleted, failed."""
    simulation = run.simulation
    if simulation is None:
        _run_end(run, RunStatus.FAILED, "its simulation was deleted")
        return
    if simulation.status == SimulationStatus.RUNNING:
        return
    if simulation.status in FAILED_RUN:
        _run_end(run, RunStatus.FAILED, f"{simulation.status}: {simulation.status_reason}")
        return
    assert run.target_step is not None
    if simulation.step < run.target_step:
        # Made but not started (paused or cancelled meanwhile), or started and paused.
        if (
            simulation.run_started_at is None
            and _experiment_status(run.experiment_id) == ExperimentStatus.RUNNING
        ):
            _simulation_go(simulation, run.target_step)
        return
    from_step = run.experiment.definition["start"].get("step") or 0
    measures = run_measure(
        simulation=simulation, spec=run.experiment.definition["measures"], from_step=from_step
    )
    ExperimentRun.objects.filter(pk=run.pk, status=RunStatus.RUNNING).update(
        status=RunStatus.DONE, measures=measures, finished_at=timezone.now()
    )


def _run_end(run: ExperimentRun, status: RunStatus, reason: str) -> None:
    ExperimentRun.objects.filter(pk=run.pk, status__in=ACTIVE).update(
        status=status, reason=reason[:2000], finished_at=timezone.now(), holder=""
    )


def _makers_dead_recover(experiment: Experiment) -> None:
    """Runs being made by a process whose lease lapsed go back to pending; what their
    maker left (a simulation part made) is deleted."""
    making = list(experiment.runs.filter(status=RunStatus.MAKING).exclude(holder=""))
    if not making:
        return
    alive = leases_alive([process_lease(run.holder) for run in making])
    for run in making:
        run.experiment = experiment
        if process_lease(run.holder) in alive:
            continue
        left = Simulation.objects.filter(owner=experiment.owner, name=run_simulation_name(run))
        for simulation in left:
            simulation_delete(simulation=simulation)
        ExperimentRun.objects.filter(pk=run.pk, status=RunStatus.MAKING, holder=run.holder).update(
            status=RunStatus.PENDING, holder="", started_at=None
        )


def _experiment_finish(experiment: Experiment) -> None:
    """Once every run ended: the results, and the experiment done."""
    if experiment.runs.exclude(status__in=(RunStatus.DONE, RunStatus.FAILED)).exists():
        return
    if _experiment_status(experiment.pk) != ExperimentStatus.RUNNING:
        return
    Experiment.objects.filter(pk=experiment.pk, status=ExperimentStatus.RUNNING).update(
        status=ExperimentStatus.DONE,
        results=experiment_results(experiment=experiment),
        finished_at=timezone.now(),
    )


def experiment_results(*, experiment: Experiment) -> dict[str, Any]:
    """Means, intervals and differences over the runs measured so far."""
    variants = [v["name"] for v in experiment.definition["variants"]]
    runs = [
        {"variant": r.variant, "seed": r.seed, "measures": r.measures}
        for r in experiment.runs.filter(status=RunStatus.DONE)
    ]
    results = results_compute(variants=variants, runs=runs)
    results["failed_runs"] = [
        {"variant": variants[r.variant], "seed": r.seed, "reason": r.reason}
        for r in experiment.runs.filter(status=RunStatus.FAILED)
    ]
    return results


def experiment_pause(*, experiment: Experiment) -> Experiment:
    """No run is made or started; the runs under way stop after their tick in flight."""
    if not Experiment.objects.filter(pk=experiment.pk, status=ExperimentStatus.RUNNING).update(
        status=ExperimentStatus.PAUSED
    ):
        raise ExperimentConflict(f"experiment {experiment.pk} is not running")
    _simulations_pause(experiment)
    experiment.refresh_from_db()
    return experiment


def experiment_resume(*, experiment: Experiment) -> Experiment:
    if not Experiment.objects.filter(pk=experiment.pk, status=ExperimentStatus.PAUSED).update(
        status=ExperimentStatus.RUNNING
    ):
        raise ExperimentConflict(f"experiment {experiment.pk} is not paused")
    for run in experiment.runs.filter(status=RunStatus.RUNNING).select_related("simulation"):
        if run.simulation is not None and run.target_step is not None:
            _simulation_go(run.simulation, run.target_step)
    with transaction.atomic():
        _advance_later(experiment.pk)
    experiment.refresh_from_db()
    return experiment


def experiment_cancel(*, experiment: Experiment) -> Experiment:
    """Stop for good: runs not made are cancelled, those under way stop after their tick
    in flight (their logs stay whole, to the step they reached) and are cancelled."""
    live = (ExperimentStatus.PENDING, ExperimentStatus.RUNNING, ExperimentStatus.PAUSED)
    if not Experiment.objects.filter(pk=experiment.pk, status__in=live).update(
        status=ExperimentStatus.CANCELLED, finished_at=timezone.now()
    ):
        raise ExperimentConflict(f"experiment {experiment.pk} has ended")
    _simulations_pause(experiment)
    experiment.runs.filter(status__in=(RunStatus.PENDING, *ACTIVE)).update(
        status=RunStatus.CANCELLED, finished_at=timezone.now()
    )
    experiment.refresh_from_db()
    return experiment


def _simulations_pause(experiment: Experiment) -> None:
    for run in experiment.runs.filter(status__in=ACTIVE).exclude(simulation=None):
        assert run.simulation is not None
        with suppress(RunRefused):  # not running (made but not started, or ended meanwhile)
            simulation_pause(simulation=run.simulation)


def experiment_delete(*, experiment: Experiment) -> None:
    """Delete the experiment (its runs' simulations stay: they are the user's); refused
    while it runs."""
    if experiment.status == ExperimentStatus.RUNNING:
        raise ExperimentConflict(f"experiment {experiment.pk} is running: pause or cancel it")
    experiment.delete()
