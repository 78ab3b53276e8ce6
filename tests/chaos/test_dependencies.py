"""Redis killed and restarted empty; Postgres crashed and restarted. The run resumes within
30 s of the dependency's return with the default recovery settings and ends with its
undisturbed twin's log, agents and memories; the ledger bills each call once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from typing import Any

import psycopg
import pytest
from django.contrib.auth.models import User

from runtime.workerproc import ROOT
from tests.model_server import ModelServer

from .harness import (
    STEPS,
    calls_in_flight,
    chaos_simulation,
    ends_as_its_twin,
    recovery,
    step_of,
    wait_for,
    worker_env,
)
from .processes import PrivatePostgres, PrivateRedis, broker_worker


@pytest.mark.chaos
@pytest.mark.django_db(transaction=True)
def test_redis_killed_and_restarted(user: User, server: ModelServer) -> None:
    """The worker's broker and cache are a Redis of the test's own. It dies while the worker
    is inside a tick (a model call in flight) and comes back empty a few seconds later:
    the messages in flight and the leases are lost; the workers' watchdog resends the tick."""
    simulation = chaos_simulation(user, seed=24)
    redis = PrivateRedis()
    redis.start()
    try:
        with broker_worker(redis, worker_env(server)) as worker:
            server.slow(0.2)
            worker.run_start(simulation, STEPS)
            wait_for(lambda: calls_in_flight(simulation), 60, "a model call in flight")
            redis.kill()
            time.sleep(4)
            redis.start()
            back = time.monotonic()
            server.slow(0)
            seconds = recovery("Redis killed and restarted", lambda: step_of(simulation), back)
            # Not yet the twin's calls: the step in flight when Redis died is decided
            # again and a few of its first attempt's calls differ from the second's.
            ends_as_its_twin(simulation, [], same_calls=False)
    finally:
        redis.stop()
    assert seconds < 30


@pytest.mark.chaos
@pytest.mark.django_db(transaction=True)
def test_postgres_crashed_and_restarted(server: ModelServer, redis: PrivateRedis) -> None:
    """A Postgres of the test's own (this run's database stays up), migrated; a worker and
    a driver on it. It crashes (`pg_ctl stop -m immediate`) while a model call is in
    flight, and restarts a few seconds later: the call's completion was lost with the
    database, so its ledger row stays in flight until the watchdog settles it unbilled."""
    database = PrivatePostgres()
    try:
        url = database.start()
        env = {**os.environ, "DATABASE_URL": url}
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--verbosity", "0"],
            cwd=ROOT,
            env=env,
            check=True,
            timeout=120,
        )
        server.slow(0.3)
        with broker_worker(redis, worker_env(server, DATABASE_URL=url)) as worker:
            env |= worker.env  # the driver: the worker's database, broker, queue and model
            started = _driver(env, "start", "25")
            simulation = started["simulation"]
            with psycopg.connect(url, autocommit=True) as db:
                wait_for(lambda: _one(db, YOUNG_CALL, simulation), 60, "a call in flight")
                crashed = [pk for (pk,) in db.execute(IN_FLIGHT, [simulation])]
                database.crash()
            time.sleep(4)
            database.start()
            back = time.monotonic()
            server.slow(0)
            with psycopg.connect(url, autocommit=True) as db:
                # The calls the crash left in flight (a worker that finds its own call
                # given up settles it at once: it may be settled already).
                left = [pk for (pk,) in db.execute(LEFT, [crashed])]
                seconds = recovery(
                    "Postgres crashed and restarted", lambda: _one(db, STEP, simulation), back
                )
                wait_for(lambda: _one(db, STATUS, simulation) != "running", 120, "the run")
            outcome = _driver(env, "finish", str(simulation), *map(str, left))
    finally:
        database.remove()
    assert left, "no call was in flight when the database crashed"
    assert outcome["status"] == ["idle", f"reached step {STEPS}", STEPS]
    assert outcome["run"] == outcome["twin"]
    assert seconds < 30


YOUNG_CALL = (
    "SELECT count(*) FROM llm_modelcall WHERE simulation_id = %s AND task <> 'embedding'"
    " AND finished_at IS NULL AND created_at > now() - interval '0.15 s'"
)
IN_FLIGHT = "SELECT id FROM llm_modelcall WHERE simulation_id = %s AND finished_at IS NULL"
LEFT = (
    "SELECT id FROM llm_modelcall WHERE id = ANY(%s)"
    " AND (finished_at IS NULL OR error LIKE 'abandoned:%%')"
)
STEP = "SELECT step FROM world_simulation WHERE id = %s"
STATUS = "SELECT status FROM world_simulation WHERE id = %s"


def _one(db: psycopg.Connection[Any], sql: str, simulation: int) -> Any:
    row = db.execute(sql, [simulation]).fetchone()
    assert row is not None
    return row[0]


def _driver(env: dict[str, str], *args: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "tests.chaos.driver", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result
