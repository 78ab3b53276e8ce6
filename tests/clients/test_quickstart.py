"""The client's example (clients/python/examples/quickstart.py), run as a user runs it
against the production server and its worker: it creates a simulation, runs an hour of
sim time, prints every event of the run streamed once in seq order, and an interview's
answer."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth.models import User

from agents.models import Interview
from tests.clients import token_of, url_of
from tests.production_server import ProductionServer
from world.models import Event, Simulation

CLIENTS = Path(__file__).resolve().parents[2] / "clients" / "python"
MINUTES = 60  # the example's own default: an hour of sim time (360 steps of 10 s)


@pytest.mark.django_db(transaction=True)
def test_the_quickstart_runs_against_the_server(served: ProductionServer, user: User) -> None:
    env = {
        **os.environ,
        "SMALLVILLE_URL": url_of(served),
        "SMALLVILLE_TOKEN": token_of(user),
        "PYTHONPATH": str(CLIENTS),  # as `pip install -e clients/python` would
    }
    # As is: the paper's cognition for an hour (20-30 s on the offline backend, 2026-11-27).
    command = [sys.executable, str(CLIENTS / "examples" / "quickstart.py")]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    out = done.stdout

    simulation = Simulation.objects.get(owner=user)
    assert simulation.base == "base_the_ville_isabella_maria_klaus"
    assert simulation.config.get("cognition", "paper") == "paper"
    assert f"simulation {simulation.pk}: " in out
    steps = MINUTES * 60 // simulation.sec_per_step
    assert f"running to step {steps} " in out
    streamed = re.search(r"streamed (\d+) events, seq 1 to (\d+)", out)
    assert streamed, out
    count, last = int(streamed[1]), int(streamed[2])
    # Every event of the run, each once: the count is the last seq, and the last is the
    # run's last step.
    assert count == last
    final = Event.objects.get(simulation=simulation, seq=last)
    assert (final.kind, final.payload["step"]) == ("simulation.stepped", steps)
    # Logged after it: the interview (and the memories it touched), at the last step.
    after = Event.objects.filter(simulation=simulation, seq__gt=last)
    assert after.filter(kind="interview.answered").count() == 1
    assert not after.exclude(step=steps) and not after.filter(kind="simulation.stepped")
    assert f"run ended: idle at step {steps} " in out

    interview = Interview.objects.get(agent__simulation=simulation)
    assert f"interview of {interview.agent.name}: {interview.answer}" in out
