"""The ledger's settlement of calls a dead process left in flight: settled and not billed
once older than the longest a call can take; a live call is left alone; a settled call
that ends after all is billed once. Run by the watchdog (`agents.runs_watch`)."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection

from llm.models import ModelCall, ModelUsage
from llm.services import model_call_admit, model_call_complete
from llm.settlement import ABANDONED, model_call_longest_seconds, model_calls_settle_abandoned
from runtime.tasks import runs_watch
from tests.factories import simulation_of
from world.models import Simulation


def _admit(simulation: Simulation) -> ModelCall:
    return model_call_admit(
        simulation=simulation, agent=None, task="summary", backend="openai", model="m", prompt="p"
    )


def _complete(call: ModelCall, tokens: int = 7) -> None:
    model_call_complete(
        call=call,
        raw_reply="{}",
        output={},
        prompt_tokens=tokens,
        completion_tokens=0,
        usage={},
        latency_ms=1,
        attempt_log=[{"outcome": "ok"}],
        error="",
    )


def _age(call: ModelCall, seconds: float) -> None:
    """As if the call had been admitted `seconds` ago."""
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE llm_modelcall SET created_at = now() - %s * interval '1 second' WHERE id = %s",
            [seconds, call.pk],
        )


_before: dict[int, tuple[int, int]] = {}


def _usage(simulation: Simulation) -> tuple[int, int]:
    """Calls and tokens counted since the fixture made the simulation."""
    usage = ModelUsage.objects.get(simulation=simulation)
    calls, tokens = _before[simulation.pk]
    return usage.calls - calls, usage.tokens - tokens


@pytest.fixture
def simulation(user: User) -> Simulation:
    """A simulation whose creation's calls (its residents' first memories) are all done."""
    simulation = simulation_of(user, seed=1)
    usage, _ = ModelUsage.objects.get_or_create(simulation=simulation)
    _before[simulation.pk] = (usage.calls, usage.tokens)
    return simulation


@pytest.mark.django_db(transaction=True)
def test_a_call_left_in_flight_is_settled_and_not_billed(simulation: Simulation) -> None:
    ended, left = _admit(simulation), _admit(simulation)
    _complete(ended)
    assert _usage(simulation) == (2, 7)  # a call in flight counts against the budget
    _age(left, model_call_longest_seconds() + 1)
    assert model_calls_settle_abandoned() == [left.pk]
    left.refresh_from_db()
    assert left.finished_at is not None and left.error == ABANDONED
    assert _usage(simulation) == (1, 7)
    assert model_calls_settle_abandoned() == []  # once


@pytest.mark.django_db(transaction=True)
def test_a_live_call_younger_than_the_bound_is_left_alone(simulation: Simulation) -> None:
    live = _admit(simulation)
    _age(live, model_call_longest_seconds() - 5)
    assert model_calls_settle_abandoned() == []
    live.refresh_from_db()
    assert live.finished_at is None and _usage(simulation) == (1, 0)
    _complete(live)
    assert _usage(simulation) == (1, 7)


@pytest.mark.django_db(transaction=True)
def test_a_settled_call_that_ends_after_all_is_billed_once(simulation: Simulation) -> None:
    slow = _admit(simulation)
    assert model_calls_settle_abandoned(older_than=0) == [slow.pk]
    assert _usage(simulation) == (0, 0)
    _complete(slow)
    slow.refresh_from_db()
    assert slow.error == "" and _usage(simulation) == (1, 7)


@pytest.mark.django_db(transaction=True)
def test_the_watchdog_settles_abandoned_calls(simulation: Simulation, settings: Any) -> None:
    settings.SMALLVILLE_LLM_TIMEOUT = 1
    settings.SMALLVILLE_LLM_MAX_RETRIES = 0
    settings.SMALLVILLE_LLM_MAX_REASKS = 0
    assert model_call_longest_seconds() == 3  # one attempt, a re-ask, two format steps: none
    left, live = _admit(simulation), _admit(simulation)
    _age(left, 4)
    runs_watch()
    abandoned = ModelCall.objects.filter(error=ABANDONED).values_list("pk", flat=True)
    assert list(abandoned) == [left.pk]
    assert ModelCall.objects.get(pk=live.pk).finished_at is None
    assert _usage(simulation) == (1, 0)
