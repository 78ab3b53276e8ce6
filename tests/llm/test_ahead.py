"""Calls sent ahead (llm/ahead.py): the next hour's decomposition is asked in the
background while the resident finishes the hour, and the step that decomposes takes it."""

from __future__ import annotations

import logging
import re
from datetime import UTC, datetime
from typing import Any

import pytest
from django.contrib.auth.models import User

from agents.tasks.importance import IMPORTANCE
from llm.ahead import ahead_send, ahead_settle
from llm.errors import LLMError
from llm.models import ModelCall
from llm.policy_server import PolicyServer
from tests.runtime.engine.ahead.test_ratings import run, town
from tests.runtime.engine.ahead.test_run import log_of
from tests.runtime.workers import wait_for
from world.models import Agent, Simulation

TEN_TO_EIGHT = datetime(2023, 2, 13, 7, 50, tzinfo=UTC)
# To 08:35: each resident awake finishes an hour block and begins the next (where its
# blocks start depends on its identity: 08:00 for one, 08:30 for another).
STEPS = 270
_FROM = re.compile(r"From (\d\d):(\d\d) for ")


def block_start(call: ModelCall) -> datetime:
    """When the hour block a decomposition call decomposes begins (its prompt says)."""
    found = _FROM.search(call.prompt)
    assert found is not None and call.sim_time is not None, call.prompt
    return call.sim_time.replace(hour=int(found[1]), minute=int(found[2]), second=0)


@pytest.mark.django_db(transaction=True)
def test_the_next_hour_is_decomposed_ahead_and_the_log_is_the_offline_one(
    user: User, settings: Any
) -> None:
    offline = run(town(user, TEN_TO_EIGHT), settings, STEPS)
    simulation = town(user, TEN_TO_EIGHT)
    with PolicyServer(latency="fixed:0.1") as server:
        for key, value in server.settings().items():
            setattr(settings, key, value)
        run(simulation, settings, STEPS)
    assert [x[1:] for x in log_of(simulation)] == [y[1:] for y in log_of(offline)]
    made = ModelCall.objects.filter(simulation=simulation, task="decompose")
    # Each block that began during the run was decomposed while its resident was still in
    # the block before, in the background; none was asked by the step that needed it.
    end = simulation.sim_time_at(STEPS)
    began = [c for c in made if TEN_TO_EIGHT < block_start(c) <= end]
    ahead = [c for c in began if c.priority == 1]
    assert len({c.agent_name for c in ahead}) >= 2, [(c.agent_name, c.priority) for c in began]
    assert all(c.sim_time is not None and c.sim_time < block_start(c) for c in ahead)
    asked_then = [c for c in began if c.priority == 0]
    assert not asked_then, [(c.agent_name, c.sim_time) for c in asked_then]
    # The offline run made the same decompositions, in the step that needed them.
    offline_made = ModelCall.objects.filter(simulation=offline, task="decompose")
    later = [c for c in offline_made if TEN_TO_EIGHT < block_start(c) <= end]
    assert len(later) >= 2
    assert {c.prompt for c in later} <= {c.prompt for c in ahead}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("error", "level"),
    [(RuntimeError("a bug"), logging.ERROR), (LLMError("refused"), logging.INFO)],
)
def test_a_call_sent_ahead_that_fails_says_why_in_the_log(
    settings: Any, caplog: pytest.LogCaptureFixture, error: Exception, level: int
) -> None:
    """No one waits on a call sent ahead: its error is logged, not lost with its thread."""
    settings.SMALLVILLE_LLM_BACKEND = "openai"  # sent ahead only to a model over the network
    settings.SMALLVILLE_LLM_BASE_URL = "http://127.0.0.1:9/v1"  # never called here
    simulation = Simulation(pk=10**9 + len(str(error)), seed=1)
    agent = Agent(pk=7, name="Wren Halloway", simulation=simulation)

    def call() -> None:
        raise error

    caplog.set_level(logging.INFO, logger="llm.ahead")
    assert ahead_send(IMPORTANCE, {"memory": str(error)}, simulation, agent, call)
    ahead_settle(timeout=10)
    wait_for(lambda: any(r.name == "llm.ahead" for r in caplog.records), 5, "the log line")
    (record,) = [r for r in caplog.records if r.name == "llm.ahead"]
    assert record.levelno == level
    assert "importance" in record.getMessage() and "Wren Halloway" in record.getMessage()
