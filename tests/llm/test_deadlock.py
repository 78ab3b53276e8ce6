"""A call's completion that Postgres aborts to break a deadlock (a transaction holding
the usage row that then waits for the call's row) runs again: the call is recorded and
its tokens counted, not lost with a crashed thread."""

from __future__ import annotations

import threading
import time

import psycopg
import pytest
from django.contrib.auth.models import User

from llm.models import ModelCall, ModelUsage
from llm.services import model_call_claim, model_call_complete
from tests.factories import unseeded_simulation
from tests.runtime import workers


@pytest.mark.django_db(transaction=True)
def test_a_completion_chosen_to_break_a_deadlock_runs_again(
    user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    simulation = unseeded_simulation(user, monkeypatch)
    call = model_call_claim(
        simulation=simulation,
        agent=None,
        task="importance",
        backend="offline",
        model="rules",
        prompt="How important is a made-up fact about Wren Halloway?",
    )
    assert call is not None
    tokens = ModelUsage.objects.get(simulation=simulation).tokens
    other = psycopg.connect(workers.test_database_url())
    # The other transaction holds the usage row ...
    other.execute(
        "UPDATE llm_modelusage SET calls = calls WHERE simulation_id = %s", [simulation.pk]
    )
    outcome: list[str] = []

    def close_the_cycle() -> None:
        # ... and, once the completion holds the call's row and waits for the usage row,
        # asks for the call's row: a deadlock. The completion waited first, so Postgres
        # aborts it after deadlock_timeout; this statement then goes through.
        time.sleep(0.3)
        other.execute("SELECT id FROM llm_modelcall WHERE id = %s FOR UPDATE", [call.pk])
        outcome.append("locked")
        other.rollback()

    closer = threading.Thread(target=close_the_cycle)
    closer.start()
    try:
        model_call_complete(
            call=call,
            raw_reply='{"rating": 3}',
            output={"rating": 3},
            prompt_tokens=40,
            completion_tokens=2,
            usage={},
            latency_ms=5,
            attempt_log=[{"attempt": 1}],
            error="",
        )
    finally:
        closer.join(timeout=30)
        other.close()
    assert outcome == ["locked"]  # the other transaction was not the one aborted
    done = ModelCall.objects.get(pk=call.pk)
    assert done.finished_at is not None and done.output == {"rating": 3}
    assert ModelUsage.objects.get(simulation=simulation).tokens == tokens + 42
