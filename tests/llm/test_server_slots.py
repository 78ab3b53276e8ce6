"""The model server's slots shared by every process (llm/slots.py), on the real Redis:
several workers keep at most SMALLVILLE_LLM_SERVER_SLOTS requests in flight between them,
critical calls take a freed slot first, and a dead holder's slot comes back."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

import pytest
import redis
from django.contrib.auth.models import User

from agents.services import simulation_create_from_base
from llm import slots
from llm.models import ModelCall
from llm.policy_server import PolicyServer
from llm.slots import server_slot, server_slots_held
from runtime import engine
from tests.factories import N3
from tests.runtime.workers import celery_workers, wait_for
from world.models import Simulation, SimulationStatus

ROOT = Path(__file__).resolve().parents[2]


def _server() -> str:
    return f"test-{uuid.uuid4().hex}"  # keys of their own for each test


def test_a_freed_slot_goes_to_a_critical_call_before_an_earlier_background_one() -> None:
    server = _server()
    order: list[str] = []

    def call(name: str, priority: int, hold: float) -> None:
        with server_slot(server, slots=1, priority=priority, lease=30):
            order.append(name)
            time.sleep(hold)

    threads = []
    for name, priority in [("busy", 0), ("background", 1), ("critical", 0)]:
        threads.append(threading.Thread(target=call, args=(name, priority, 0.4)))
        threads[-1].start()
        time.sleep(0.1)  # arrival order: busy holds the slot, then the two wait
    assert server_slots_held(server) == 1
    for thread in threads:
        thread.join()
    assert order == ["busy", "critical", "background"]
    assert server_slots_held(server) == 0


def test_a_slot_whose_process_died_holding_it_is_free_after_its_lease() -> None:
    server = _server()
    script = (
        "import os, django; django.setup()\n"
        "from llm.slots import server_slot\n"
        f"with server_slot({server!r}, slots=1, priority=0, lease=1.5):\n"
        "    os.kill(os.getpid(), 9)\n"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "smallville_project.settings"}
    died = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, check=False)
    assert died.returncode == -9
    assert server_slots_held(server) == 1
    started = time.monotonic()
    with server_slot(server, slots=1, priority=0, lease=30):
        waited = time.monotonic() - started
    assert 0.3 < waited < 3.0  # the lease ran out; nobody gave the slot back


def test_with_redis_out_of_reach_a_call_goes_ahead_without_a_slot(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(slots, "_client", redis.Redis(port=1, socket_connect_timeout=0.5))
    ran = False
    with (
        caplog.at_level(logging.WARNING, logger="llm.slots"),
        server_slot(_server(), slots=1, priority=0, lease=30),
    ):
        ran = True
    assert ran
    assert "model server slots unavailable" in caplog.text


@pytest.mark.django_db(transaction=True)
def test_two_workers_keep_no_more_calls_in_flight_than_the_server_takes(user: User) -> None:
    """Two simulations' mornings in two worker processes (each of three residents that
    decide at once): the server, with no queue of its own, never works on more than the
    two requests it takes, and both runs finish."""
    runs = [
        simulation_create_from_base(
            owner=user,
            base=N3,
            name=f"morning {n}",
            seed=n,
            start_time=datetime(2023, 2, 13, 7, 0, tzinfo=UTC),
            config={"cognition": "paper"},
        )
        for n in (1, 2)
    ]
    before = ModelCall.objects.count()  # the seed ratings
    server = PolicyServer(latency="fixed:0.2", slots=0)
    env = {**server.env(), "SMALLVILLE_LLM_SERVER_SLOTS": "2", "SMALLVILLE_LLM_TIMEOUT": "30"}
    env["SMALLVILLE_LLM_CONCURRENCY"] = "2"  # each process alone would keep 2 in flight
    with server, celery_workers(2, env):
        for simulation in runs:
            engine.simulation_run(simulation=simulation, steps=2)
        wait_for(
            lambda: (
                not Simulation.objects.filter(
                    pk__in=[s.pk for s in runs], status=SimulationStatus.RUNNING
                ).exists()
            ),
            timeout=240,
            what="both runs",
        )
    for simulation in runs:
        simulation.refresh_from_db()
        assert simulation.status == SimulationStatus.IDLE, simulation.status_reason
        assert simulation.step == 2
    calls = ModelCall.objects.order_by("id")[before:]
    assert {c.simulation_id for c in calls} == {s.pk for s in runs}
    assert all(c.backend == "openai" and c.error == "" for c in calls)
    assert server.peak == 2
