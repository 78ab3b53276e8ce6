"""A deployment over hosts (tests/chaos/deployment.py): the web server, two workers,
Postgres and Redis each on a host of its own, joined by virtual links. A simulation runs
across them; one worker's link is cut mid-run, for longer than its leases, and restored:
the other worker carries the run on, and it ends with the log of an undisturbed twin; the
ledger bills what the model was asked, and nothing was asked twice but the calls the cut
left without their answers."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator

import pytest

from tests.factories import N3
from tests.model_server import ModelServer, policy_answers

from .deployment import Deployment
from .harness import FIGURES, MODEL_BOUNDS, RECOVERIES, START, model_settings, wait_for

STEPS = 90
SEED = 41
CUT_SECONDS = 20.0  # past a lease (6 s) and a stall (8 s) with the watchdog's look (3 s)


@pytest.fixture
def deployment() -> Iterator[Deployment]:
    deployment = Deployment({**MODEL_BOUNDS, "SMALLVILLE_SHARD_SIZE": "1"})
    try:
        yield deployment
    finally:
        deployment.stop()


@pytest.mark.chaos
@pytest.mark.django_db(transaction=True)  # the stand-in behind the model server keeps vectors
def test_a_run_over_hosts_outlives_a_workers_link_cut_and_restored(
    deployment: Deployment,
) -> None:
    model = ModelServer(policy_answers, embedding_dimensions=384, host=deployment.network.address)
    try:
        deployment.start(model_settings(model))
        model.slow(0.05)
        twin = _simulation(deployment)
        _run(deployment, twin)
        _finished(deployment, twin, 300)
        wait_for(lambda: deployment.in_flight(twin) == 0, 60, "the twin's ledger settled")

        # the cut comes while worker a waits on the model for a resident's decision
        model.slow(0.05, prompts={"Isabella Rodriguez": 1.5})
        worker_a = deployment.network.hosts["worker-a"].address
        asked_before = len(model.chat_requests())  # its seed memories are rated as it is made
        simulation = _simulation(deployment)
        _run(deployment, simulation)
        wait_for(lambda: model.chat_in_flight_from(worker_a), 120, "a call of worker a in flight")
        deployment.network.cut("worker-a")
        cut_off = Counter(model.chat_in_flight_from(worker_a))
        cut_at, stood = time.monotonic(), _step(deployment, simulation)
        wait_for(lambda: _step(deployment, simulation) > stood, 60, "the run going on without a")
        carried = time.monotonic() - cut_at
        wait_for(lambda: _live_workers(deployment) == "1 live", 30, "readiness to count one worker")
        time.sleep(max(0.0, CUT_SECONDS - (time.monotonic() - cut_at)))
        # What the cut left without an answer worker a could record, read before its link
        # is back: the calls in flight in the ledger, settled as abandoned once its lease
        # lapsed. That is more than those the model had not answered at the cut: an answer
        # can reach worker a just before the cut, and its record not reach the database.
        lost = deployment.abandoned(simulation)
        deployment.network.restore("worker-a")
        restored_at = time.monotonic()
        wait_for(lambda: _live_workers(deployment) == "2 live", 60, "the cut worker to beat again")
        back = time.monotonic() - restored_at
        _finished(deployment, simulation, 300)
        for host, (postgres, redis) in deployment.connections().items():
            FIGURES.append(
                (f"over hosts: {host}'s connections (Postgres, Redis)", f"{postgres}, {redis}")
            )
        RECOVERIES.append(("over hosts: the run going on after a worker's link is cut", carried))
        RECOVERIES.append(("over hosts: the cut worker live again after its link is back", back))
    finally:
        model.close()

    assert deployment.log_of(simulation) == deployment.log_of(twin)
    wait_for(lambda: deployment.in_flight(simulation) == 0, 60, "the ledger settled")
    # The ledger bills each call the model was asked, as often as it was asked: none
    # billed that was not made, none made that is not billed.
    asked = Counter(model.asked()[asked_before:])
    ran, undisturbed = deployment.billed(simulation), deployment.billed(twin)
    assert ran == asked, (ran - asked, asked - ran)
    # None asked twice but a call the cut left without its recorded answer: its worker may
    # have had the answer and lost it with its link, and the worker that took its work over
    # asked again (rather than wait on a host it cannot reach), once. The calls the model
    # had not answered at the cut are among them.
    again = ran - undisturbed
    assert cut_off <= lost, (cut_off, lost)
    assert again <= lost, (again, lost)
    assert carried < 30 and back < 30


def _live_workers(deployment: Deployment) -> str:
    """What the web's readiness check says of the workers, e.g. "2 live"."""
    _, ready = deployment.request("GET", "/readyz")
    return str(ready["checks"]["workers"]["detail"])


def _simulation(deployment: Deployment) -> int:
    body = {
        "base": N3,
        "seed": SEED,
        "start_time": START.isoformat(),
        "config": {"cognition": "paper"},
    }
    status, made = deployment.request("POST", "/api/simulations/", body)
    assert status == 201, made
    return int(made["id"])


def _run(deployment: Deployment, simulation: int) -> None:
    status, body = deployment.request(
        "POST", f"/api/simulations/{simulation}/run/", {"steps": STEPS}
    )
    assert status in (200, 202), body


def _progress(deployment: Deployment, simulation: int) -> dict[str, object]:
    status, body = deployment.request("GET", f"/api/simulations/{simulation}/")
    assert status == 200, body
    return dict(body)


def _step(deployment: Deployment, simulation: int) -> int:
    return int(str(_progress(deployment, simulation)["step"]))


def _finished(deployment: Deployment, simulation: int, timeout: float) -> None:
    wait_for(lambda: _progress(deployment, simulation)["status"] != "running", timeout, "the run")
    done = _progress(deployment, simulation)
    assert done["status"] == "idle" and done["step"] == STEPS, (done["status_reason"], done)
