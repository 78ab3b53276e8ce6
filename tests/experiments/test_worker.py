"""Experiments on real Celery workers on the real Redis: the runs equal the same
simulations made and run by hand; a killed worker loses nothing; two workers share the
runs; cancel stops the runs with whole logs."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from rest_framework.test import APIClient

from experiments.models import Experiment, ExperimentRun, ExperimentStatus, RunStatus
from runtime import engine
from runtime.workerproc import WorkerProcess
from tests.runtime.workers import celery_worker, wait_for
from world.eventlog import simulation_rebuild, simulation_snapshot
from world.models import Simulation, SimulationStatus

from .town import NEWS, base_made, definition
from .twins import log_of, twin_of

FACT = f"diffusion: {NEWS}"


def _experiment(api: APIClient, **fields: Any) -> Experiment:
    made = api.post("/api/experiments/", definition(base_made(api), **fields), format="json")
    assert made.status_code == 201, made.content
    return Experiment.objects.get(pk=made.json()["id"])


def _status(experiment: Experiment) -> str:
    experiment.refresh_from_db()
    return experiment.status


def _runs(experiment: Experiment) -> list[ExperimentRun]:
    return list(experiment.runs.select_related("simulation", "experiment"))


def _wait_under_way(experiment: Experiment, runs: int, step: int) -> None:
    """Until `runs` of its runs have reached `step`."""

    def under_way() -> bool:
        reached = [r.simulation and r.simulation.step >= step for r in _runs(experiment)]
        return sum(bool(r) for r in reached) >= runs

    wait_for(under_way, 300, f"{runs} run(s) at step {step}")


def _wait_done(experiment: Experiment, timeout: float = 300) -> None:
    wait_for(lambda: _status(experiment) == ExperimentStatus.DONE, timeout, "the experiment")


def _none_running(experiment: Experiment) -> bool:
    return all(
        r.simulation is None or r.simulation.status != SimulationStatus.RUNNING
        for r in _runs(experiment)
    )


def _made(run: ExperimentRun) -> Simulation:
    assert run.simulation is not None, run
    return run.simulation


@pytest.mark.django_db(transaction=True)
def test_two_workers_take_its_runs_and_each_equals_its_simulation_run_by_hand(
    api: APIClient,
) -> None:
    experiment = _experiment(api, concurrency=2)
    url = f"/api/experiments/{experiment.pk}/"
    with celery_worker() as first:
        second = WorkerProcess(first.queue, first.env)
        second.log = first.log.with_name(f"{first.log.stem}-second.log")
        second.start()
        try:
            assert api.post(f"{url}start/").status_code == 200
            _wait_done(experiment)
        finally:
            second.stop()
        logs = [first.log.read_text(), second.log.read_text()]
    for log in logs:
        assert re.search(r"Task agents\.tick\[[^\]]+\] succeeded", log), "a worker did no tick"
    runs = _runs(experiment)
    assert {r.status for r in runs} == {RunStatus.DONE}
    spans = []
    for run in runs:
        times = list(_made(run).events.order_by("seq").values_list("created_at", flat=True))
        spans.append((times[0], times[-1]))
    overlapping = [
        (a, b) for i, a in enumerate(spans) for b in spans[i + 1 :] if a[0] < b[1] and b[0] < a[1]
    ]
    assert overlapping, "no two runs ran at the same time"
    for run in runs:
        assert _made(run).step == 30
        assert log_of(_made(run)) == log_of(twin_of(api, run)), run
    # The variant's base is the user's, with the news left out of Tamsin's seed memories.
    edited = api.get(f"/api/bases/{experiment.variant_bases[1]}/").json()
    tamsin = next(r for r in edited["residents"] if r["name"] == "Tamsin Oakes")
    assert not any("kite workshop" in m for m in tamsin["seed_memories"])

    body = api.get(url).json()
    assert body["progress"]["steps_done"] == body["progress"]["steps_total"] == 4 * 30
    results = api.get(f"{url}results/").json()
    control, left_out = results["variants"]
    assert control["name"] == "as seeded" and control["runs"] == 2
    # Each run's own measure, as its memories say: nobody but the source knew at first.
    for variant in (control, left_out):
        assert set(variant["measures"][FACT]["values"]) == {"1", "2"}
        assert variant["measures"]["model calls"]["mean"] > 0
    assert results["differences"][0]["variant"] == "news left out"
    csv = api.get(f"{url}results/csv/")
    assert csv.status_code == 200 and csv["Content-Type"].startswith("text/csv")
    assert f"difference,news left out,as seeded,{FACT}" in csv.content.decode()
    report = api.get(f"{url}report/", HTTP_ACCEPT="text/html")
    assert report.status_code == 200 and b"data:image/png;base64," in report.content
    assert b"offline backend" in report.content


@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_mid_experiment_loses_nothing(api: APIClient) -> None:
    experiment = _experiment(api, span={"steps": 40}, concurrency=1)
    with celery_worker() as worker:
        api.post(f"/api/experiments/{experiment.pk}/start/")

        _wait_under_way(experiment, 1, step=8)
        worker.kill()
        assert _status(experiment) == ExperimentStatus.RUNNING
        worker.start()
        _wait_done(experiment, 600)
    runs = _runs(experiment)
    assert {r.status for r in runs} == {RunStatus.DONE}
    for run in runs:
        assert log_of(_made(run)) == log_of(twin_of(api, run)), run
    # Nothing made twice: one simulation per run.
    names = Simulation.objects.filter(name__contains=f"experiment {experiment.pk} run")
    assert names.count() == len(runs)


@pytest.mark.django_db(transaction=True)
def test_cancel_stops_the_runs_and_leaves_their_logs_whole(api: APIClient) -> None:
    experiment = _experiment(api, span={"steps": 400}, concurrency=2)
    with celery_worker():
        api.post(f"/api/experiments/{experiment.pk}/start/")
        _wait_under_way(experiment, 2, step=5)
        cancelled = api.post(f"/api/experiments/{experiment.pk}/cancel/")
        assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
        wait_for(lambda: _none_running(experiment), 120, "the runs to stop")
    runs = _runs(experiment)
    assert {r.status for r in runs} == {RunStatus.CANCELLED}
    made = [r for r in runs if r.simulation is not None]
    assert len(made) == 2  # the two under way; the others never made
    for run in made:
        simulation = _made(run)
        assert simulation.step < 400
        live = simulation_snapshot(simulation=simulation)
        simulation_rebuild(simulation=simulation)
        assert simulation_snapshot(simulation=simulation) == live
        assert log_of(simulation) == log_of(twin_of(api, run, steps=simulation.step))


@pytest.mark.django_db(transaction=True)
def test_pause_holds_every_run_and_resume_finishes_them_whole(api: APIClient) -> None:
    experiment = _experiment(api, span={"steps": 40}, concurrency=1)
    url = f"/api/experiments/{experiment.pk}/"
    with celery_worker():
        api.post(f"{url}start/")
        _wait_under_way(experiment, 1, step=5)
        paused = api.post(f"{url}pause/")
        assert paused.status_code == 200 and paused.json()["status"] == "paused"

        def steps() -> list[tuple[int, int | None]]:
            return [(r.pk, r.simulation.step if r.simulation else None) for r in _runs(experiment)]

        wait_for(lambda: _none_running(experiment), 60, "the run under way to stop")
        time.sleep(2)  # the tick in flight when it paused commits
        before = steps()
        time.sleep(4)  # the watchdog's sweeps come every second: none may start a run
        assert steps() == before
        assert sum(r.simulation is not None for r in _runs(experiment)) == 1
        resumed = api.post(f"{url}resume/")
        assert resumed.status_code == 200 and resumed.json()["status"] == "running"
        _wait_done(experiment, 600)
    for run in _runs(experiment):
        assert run.status == RunStatus.DONE
        assert log_of(_made(run)) == log_of(twin_of(api, run)), run


@pytest.mark.django_db(transaction=True)
def test_a_counterfactual_forks_one_step_and_each_branch_equals_its_fork_by_hand(
    api: APIClient,
) -> None:
    made = api.post("/api/simulations/", {"base": base_made(api), "seed": 5}, format="json")
    parent = engine.simulation_run_inline(
        simulation=Simulation.objects.get(pk=made.json()["id"]), steps=12
    )
    whisper = {
        "kind": "whisper",
        "at": "2024-09-02T09:15:00Z",  # step 15, after the fork's step 10
        "resident": "Juno Prask",
        "statement": "Juno Prask heard that the old mill will be a kite workshop",
    }
    body = {
        "name": "told at the mill",
        "start": {"simulation": parent.pk, "step": 10},
        "span": {"steps": 20},
        "seeds": [11, 12],
        "variants": [
            {"name": "as it went"},
            {"name": "Juno told", "scenarios": {"add": [whisper]}},
        ],
    }
    created = api.post("/api/experiments/", body, format="json")
    assert created.status_code == 201, created.content
    experiment = Experiment.objects.get(pk=created.json()["id"])
    with celery_worker():
        api.post(f"/api/experiments/{experiment.pk}/start/")
        _wait_done(experiment)
    for run in _runs(experiment):
        simulation = _made(run)
        assert simulation.parent_id == parent.pk and simulation.forked_at_step == 10
        assert simulation.step == 30 and simulation.seed == run.seed
        live = simulation_snapshot(simulation=simulation)
        simulation_rebuild(simulation=simulation)  # its seed is in its log
        assert simulation_snapshot(simulation=simulation) == live
        fork = api.post(
            f"/api/simulations/{parent.pk}/fork/", {"step": 10, "seed": run.seed}, format="json"
        )
        assert fork.status_code == 201, fork.content
        twin = Simulation.objects.get(pk=fork.json()["id"])
        if run.variant == 1:
            added = api.post(f"/api/simulations/{twin.pk}/scenarios/", whisper, format="json")
            assert added.status_code == 201, added.content
        twin = engine.simulation_run_inline(simulation=twin, steps=20)
        assert log_of(simulation) == log_of(twin), run
    told = [r for r in _runs(experiment) if r.variant == 1]
    for run in told:
        assert _made(run).events.filter(kind="scenario.applied").exists()


@pytest.mark.django_db(transaction=True)
def test_a_failed_run_is_reported_and_the_others_go_on(api: APIClient) -> None:
    experiment = _experiment(api, span={"steps": 200}, concurrency=2)
    url = f"/api/experiments/{experiment.pk}/"
    with celery_worker():
        api.post(f"{url}start/")
        _wait_under_way(experiment, 2, step=3)
        doomed = next(r for r in _runs(experiment) if r.simulation is not None)
        simulation = f"/api/simulations/{doomed.simulation_id}/"
        assert api.post(f"{simulation}pause/").status_code == 200
        wait_for(lambda: api.delete(simulation).status_code == 204, 60, "the paused run's deletion")
        _wait_done(experiment)
    runs = {r.pk: r for r in _runs(experiment)}
    assert runs[doomed.pk].status == RunStatus.FAILED
    assert runs[doomed.pk].reason == "its simulation was deleted"
    assert sorted(r.status for r in runs.values()).count(RunStatus.DONE) == 3
    results = api.get(f"{url}results/").json()
    variant = experiment.definition["variants"][doomed.variant]["name"]
    assert results["failed_runs"] == [
        {"variant": variant, "seed": doomed.seed, "reason": "its simulation was deleted"}
    ]
    counted = next(v for v in results["variants"] if v["name"] == variant)
    assert counted["runs"] == 1  # the failed run's seed is not in its variant's measures
    body = api.get(url).json()
    assert body["progress"]["by_status"]["failed"] == 1
