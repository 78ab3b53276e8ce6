"""Identical calls are one call (llm/answers.py): asked at once by several threads, the
model is asked once and the others take its answer; a call in flight whose process died
is settled as abandoned by the call that waits for it, which then asks the model."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connections

from agents.services import simulation_create_from_base
from agents.tasks.importance import IMPORTANCE
from llm.models import ModelCall
from llm.policy_server import PolicyServer
from llm.port import llm_run
from llm.settlement import ABANDONED
from world.models import Agent, Simulation

TOWN = "base_the_ville_isabella_maria_klaus"
INPUTS = {
    "agent_name": "Wren Halloway",
    "agent_identity": "Name: Wren Halloway\nAge: 41",
    "memory": "Wren Halloway repaired the lighthouse lamp at dawn",
}


def _town(user: User) -> tuple[Simulation, Agent]:
    simulation = simulation_create_from_base(
        owner=user, base=TOWN, seed=9, start_time=datetime(2023, 2, 13, 7, 0, tzinfo=UTC)
    )
    return simulation, simulation.agents.order_by("name").first()  # type: ignore[return-value]


def _rows(simulation: Simulation) -> Any:
    return ModelCall.objects.filter(simulation=simulation, task=IMPORTANCE.name).filter(
        prompt__contains="lighthouse lamp"
    )


@pytest.mark.django_db(transaction=True)
def test_identical_calls_made_at_once_ask_the_model_once(user: User, settings: Any) -> None:
    simulation, agent = _town(user)
    with PolicyServer(latency="fixed:0.5", slots=0) as server:
        for key, value in server.settings().items():
            setattr(settings, key, value)

        def ask(_: int) -> Any:
            try:
                return llm_run(task=IMPORTANCE, inputs=INPUTS, agent=agent)
            finally:
                connections.close_all()

        with ThreadPoolExecutor(max_workers=4) as pool:
            answers = list(pool.map(ask, range(4)))
    assert len({answer.model_dump_json() for answer in answers}) == 1
    made = _rows(simulation).get()  # one row, one call billed
    assert made.error == "" and made.takes == 3 and made.taken_at is not None


@pytest.mark.django_db(transaction=True)
def test_a_call_whose_process_died_is_settled_by_its_waiter_and_asked_again(
    user: User,
) -> None:
    simulation, agent = _town(user)
    first = llm_run(task=IMPORTANCE, inputs=INPUTS, agent=agent)
    # As if its worker had been killed in flight: no lease for its holder.
    _rows(simulation).update(finished_at=None, holder="gone:1:dead", output=None)
    again = llm_run(task=IMPORTANCE, inputs=INPUTS, agent=agent)
    assert again == first
    rows = list(_rows(simulation).order_by("id").values_list("error", "finished_at", "shared"))
    assert len(rows) == 2
    assert rows[0][0] == ABANDONED and rows[0][2] is False
    assert rows[1][0] == "" and rows[1][1] is not None and rows[1][2] is True
