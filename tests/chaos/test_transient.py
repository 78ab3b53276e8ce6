"""A step whose attempt fails on a transient error (the database away) is retried by the
same worker process and decides exactly what an undisturbed run decides."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import OperationalError

from llm.port import llm_run
from runtime import engine
from runtime.dispatch import RecordingBroker, broker_used
from runtime.engine.inline import InlineBroker
from tests.model_server import ModelServer
from world.models import SimulationStatus

from .harness import chaos_simulation, facts, twin_of


@pytest.mark.django_db(transaction=True)
def test_a_step_retried_after_a_transient_error_decides_as_the_first_try_would(
    user: User, server: ModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    simulation = chaos_simulation(user, seed=31)
    failed: list[str] = []

    def once(**kwargs: Any) -> Any:
        if kwargs["task"].name == "hourly_schedule" and not failed:
            failed.append(kwargs["agent"].name)  # its summary and day plan are made
            raise OperationalError("server closed the connection unexpectedly")
        return llm_run(**kwargs)

    monkeypatch.setattr("agents.cognition.planning.llm_run", once)  # asks for the schedule
    with broker_used(RecordingBroker()):
        engine.simulation_run(simulation=simulation, steps=3)
        with pytest.raises(OperationalError):
            engine.engine_tick(simulation_id=simulation.pk, step=0)
    simulation.refresh_from_db()
    assert simulation.status == SimulationStatus.RUNNING, simulation.status_reason
    inline = InlineBroker()
    with broker_used(inline):
        engine.engine_tick(simulation_id=simulation.pk, step=0)
        inline.drain()
    twin = engine.simulation_run_inline(simulation=twin_of(simulation), steps=3)
    assert facts(simulation) == facts(twin)
