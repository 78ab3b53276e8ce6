"""Completions and deadlocks over the usage row. A completion locks the usage row before
the call's row, as admission does, so an admission of an identical call cannot close a
cycle with it; and a completion that Postgres still aborts to break a deadlock runs
again: the call is recorded and its tokens counted, not lost with a crashed thread."""

from __future__ import annotations

import threading
import time

import psycopg
import pytest
from django.contrib.auth.models import User

from kernel.pools import in_own_connection
from llm.models import ModelCall, ModelUsage
from llm.services import model_call_claim, model_call_complete
from tests.factories import unseeded_simulation
from tests.runtime import workers
from world.models import Simulation


def _claimed(simulation: Simulation, prompt: str, key: str = "") -> ModelCall:
    call = model_call_claim(
        simulation=simulation,
        agent=None,
        task="importance",
        backend="offline",
        model="rules",
        prompt=prompt,
        key=key,
    )
    assert call is not None
    return call


def _waiting_on_a_lock(conn: psycopg.Connection[tuple[object, ...]]) -> None:
    """Until another session of the test database waits on a lock (a fixed sleep was
    too short on a loaded machine)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()"
        ).fetchone()
        if row is not None and int(str(row[0])) > 0:
            return
        time.sleep(0.02)
    raise AssertionError("no session waited on a lock within 30 s")


def _complete(call: ModelCall, rating: int) -> None:
    model_call_complete(
        call=call,
        raw_reply=f'{{"rating": {rating}}}',
        output={"rating": rating},
        prompt_tokens=40,
        completion_tokens=2,
        usage={},
        latency_ms=5,
        attempt_log=[{"attempt": 1}],
        error="",
    )


@pytest.mark.django_db(transaction=True)
def test_a_completion_chosen_to_break_a_deadlock_runs_again(
    user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    simulation = unseeded_simulation(user, monkeypatch)
    call = _claimed(simulation, "How important is a made-up fact about Wren Halloway?")
    tokens = ModelUsage.objects.get(simulation=simulation).tokens
    other = psycopg.connect(workers.test_database_url())
    # The other transaction holds the call's row ...
    other.execute("SELECT id FROM llm_modelcall WHERE id = %s FOR UPDATE", [call.pk])
    outcome: list[str] = []

    def close_the_cycle() -> None:
        # ... and, once the completion holds the usage row and waits for the call's row,
        # asks for the usage row: a deadlock. The completion waited first, so Postgres
        # aborts it after deadlock_timeout; this statement then goes through.
        with psycopg.connect(workers.test_database_url(), autocommit=True) as watcher:
            _waiting_on_a_lock(watcher)
        other.execute(
            "UPDATE llm_modelusage SET calls = calls WHERE simulation_id = %s", [simulation.pk]
        )
        outcome.append("locked")
        other.rollback()

    closer = threading.Thread(target=close_the_cycle)
    closer.start()
    try:
        _complete(call, 3)
    finally:
        closer.join(timeout=30)
        other.close()
    assert outcome == ["locked"]  # the other transaction was not the one aborted
    done = ModelCall.objects.get(pk=call.pk)
    assert done.finished_at is not None and done.output == {"rating": 3}
    assert ModelUsage.objects.get(simulation=simulation).tokens == tokens + 42


@pytest.mark.django_db(transaction=True)
def test_an_identical_call_admitted_while_one_completes_does_not_deadlock(
    user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An admission holds the usage row and, for an identical call, waits to see whether
    the call being completed still answers it. The completion must not hold the call's row
    while it waits for the usage row: it locks the usage row first, as admission does."""
    simulation = unseeded_simulation(user, monkeypatch)
    call = _claimed(
        simulation, "How important is it that Odile Brask repaints the ferry?", "made-up-key"
    )
    other = psycopg.connect(workers.test_database_url())
    other.execute(  # the admission's first step: the usage row, locked
        "UPDATE llm_modelusage SET calls = calls WHERE simulation_id = %s", [simulation.pk]
    )
    completing = threading.Thread(target=in_own_connection, args=(lambda: _complete(call, 4),))
    completing.start()
    try:
        with psycopg.connect(workers.test_database_url(), autocommit=True) as watcher:
            _waiting_on_a_lock(watcher)  # the completion now waits for the usage row
        columns = [
            row[0]
            for row in other.execute(
                "SELECT column_name FROM information_schema.columns "
                "WHERE table_name = 'llm_modelcall' AND column_name <> 'id'"
            )
        ]
        listed = ", ".join(columns)
        other.execute("SET LOCAL lock_timeout = '500ms'")
        # The admission's second step: the identical call's row, written unless the call
        # in flight answers it. Held up by the completion, it would close a deadlock.
        written = other.execute(
            f"INSERT INTO llm_modelcall ({listed}) SELECT {listed} FROM llm_modelcall "
            "WHERE id = %s ON CONFLICT (simulation_id, key) WHERE shared DO NOTHING "
            "RETURNING id",
            [call.pk],
        ).fetchall()
        assert written == []  # the call in flight answers it: nothing written, no wait
        other.rollback()
    finally:
        other.close()
        completing.join(timeout=30)
    done = ModelCall.objects.get(pk=call.pk)
    assert done.finished_at is not None and done.output == {"rating": 4}
