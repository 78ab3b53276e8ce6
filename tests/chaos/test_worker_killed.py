"""kill -9 of a worker inside a unit of work: agent steps, a reflection job, a commit. A new
worker with the default recovery settings resumes the run within 30 s, and the run ends
with its undisturbed twin's log, agents and memories; the ledger bills each call once."""

from __future__ import annotations

import time

import psycopg
import pytest
from django.contrib.auth.models import User

from agents.reflection.models import JobStatus, ReflectionJob
from llm.models import ModelCall
from llm.selectors import model_call_summary
from memories.embeddings import EMBEDDING_TASK
from runtime import engine
from runtime.models import Decision, StagedCommit
from tests.model_server import ModelServer
from tests.runtime import workers
from world.models import Simulation

from .harness import (
    STEPS,
    cache_holding_leases,
    calls_in_flight,
    chaos_simulation,
    ends_as_its_twin,
    recovery,
    step_of,
    wait_for,
    worker_env,
)
from .processes import PrivateRedis, broker_worker


@pytest.mark.chaos
@pytest.mark.django_db(transaction=True)
def test_worker_killed_during_agent_steps(
    user: User, server: ModelServer, redis: PrivateRedis
) -> None:
    """One agent per agent-step task, and the first morning's plans take the model a while:
    the worker dies once one agent's decision is stored and another's call is in flight.
    The model answers one resident slowly, so that moment lasts (as in the ahead test)."""
    simulation = chaos_simulation(user, seed=21)
    server.slow(0.3, prompts={"Isabella Rodriguez": 1.2})  # within the workers' 5 s timeout
    with broker_worker(redis, worker_env(server, SMALLVILLE_SHARD_SIZE="1")) as worker:
        worker.run_start(simulation, STEPS)

        def partly_decided() -> bool:
            decided = Decision.objects.filter(simulation=simulation, step=step_of(simulation))
            return 0 < decided.count() < 3 and bool(calls_in_flight(simulation, chat=True))

        wait_for(partly_decided, 60, "a step partly decided with a model call in flight")
        worker.kill()
        left = calls_in_flight(simulation)
        assert left
        progress = engine.simulation_progress(simulation=simulation)  # what a user sees
        assert progress.status == "running", progress
        assert progress.waiting_for.startswith(f"deciding step {progress.step + 1}: "), progress
        server.slow(0)
        worker.start()
        seconds = recovery(
            "worker killed during agent steps", lambda: step_of(simulation), time.monotonic()
        )
        ends_as_its_twin(simulation, left)
    assert seconds < 30


@pytest.mark.chaos
@pytest.mark.django_db(transaction=True)
def test_worker_killed_during_a_reflection_job(
    user: User, server: ModelServer, redis: PrivateRedis
) -> None:
    """Every resident reflects on its first observation; the model takes its time with
    reflections. The worker dies while a job runs, a reflection call in flight."""
    simulation = chaos_simulation(user, seed=22, reflection_threshold=1)
    server.slow(0, reflection_questions=1.0, reflection_insights=1.0)
    with broker_worker(redis, worker_env(server), concurrency=2) as worker:
        worker.run_start(simulation, STEPS)

        def reflecting() -> bool:
            jobs = ReflectionJob.objects.filter(simulation=simulation, status=JobStatus.RUNNING)
            return jobs.exists() and bool(calls_in_flight(simulation, 0.5))

        wait_for(reflecting, 60, "a reflection job running, a call in flight")
        worker.kill()
        left = calls_in_flight(simulation)
        assert left
        progress = engine.simulation_progress(simulation=simulation)
        assert progress.status == "running", progress
        assert "waits for reflections" in progress.waiting_for, progress
        server.slow(0)
        worker.start()
        seconds = recovery(
            "worker killed during a reflection job", lambda: step_of(simulation), time.monotonic()
        )
        ends_as_its_twin(simulation, left)
    jobs = ReflectionJob.objects.filter(simulation=simulation)
    assert jobs and all(job.status == JobStatus.DONE for job in jobs)
    assert max(job.attempts for job in jobs) == 2  # the killed attempt, then the one after
    assert seconds < 30


@pytest.mark.chaos
@pytest.mark.django_db(transaction=True)
def test_worker_killed_during_a_commit(
    user: User, server: ModelServer, redis: PrivateRedis
) -> None:
    """The commit of a step is one transaction; the test holds a lock on the step's staged
    decisions (as a slow transaction elsewhere might), so the commit waits at its last
    write, the step's events appended and projected. The worker dies there: Postgres rolls
    the commit back, and a new worker commits the step again."""
    simulation = chaos_simulation(user, seed=23)
    url = workers.test_database_url()
    with (
        broker_worker(redis, worker_env(server, SMALLVILLE_SHARD_SIZE="1")) as worker,
        psycopg.connect(url, autocommit=True) as watch,
        psycopg.connect(url) as locker,
    ):
        worker.run_start(simulation, STEPS)
        wait_for(lambda: step_of(simulation) >= 3, 60, "a few steps")
        commit = wait_for(lambda: _commit_blocked(simulation, locker, watch), 60, "a commit")
        pid, wrote = commit
        assert wrote, "the commit had written nothing yet"
        stood = step_of(simulation)
        worker.kill()
        locker.rollback()  # the killed worker's transaction goes on, finds its client gone
        gone = "SELECT count(*) FROM pg_stat_activity WHERE pid = %s"
        wait_for(lambda: watch.execute(gone, [pid]).fetchone() == (0,), 30, "its rollback")
        assert step_of(simulation) == stood  # nothing of the commit was kept
        worker.start()
        seconds = recovery(
            "worker killed during a commit", lambda: step_of(simulation), time.monotonic()
        )
        ends_as_its_twin(simulation, [])
    assert seconds < 30


def _commit_blocked(
    simulation: Simulation, locker: psycopg.Connection, watch: psycopg.Connection
) -> tuple[int, bool] | None:
    """Lock the decisions staged for the step in flight and wait briefly for its commit to
    block on them: (the commit's backend pid, whether it has written) or None (no decision
    staged, or the commit came and went; the locks are released)."""
    rows = locker.execute(
        "SELECT id FROM runtime_decision WHERE simulation_id = %s FOR UPDATE SKIP LOCKED",
        [simulation.pk],
    ).fetchall()
    if rows:
        blocked = (
            "SELECT pid, backend_xid IS NOT NULL, query FROM pg_stat_activity"
            " WHERE %s = ANY(pg_blocking_pids(pid))"
        )
        # A statement's view of pg_stat_activity is a snapshot taken before the blocking
        # pids are read, so the waiter may first show the statement before its DELETE (a
        # RELEASE SAVEPOINT, say): it is polled again, each time in a new snapshot.
        deadline = time.monotonic() + 3
        seen = ""
        while time.monotonic() < deadline:
            found = watch.execute(blocked, [locker.info.backend_pid]).fetchone()
            if found and found[2].startswith("DELETE"):  # the commit's last write
                return found[0], found[1]
            seen = found[2] if found else seen
            time.sleep(0.05)
        assert not seen, f"the commit waited on the lock in {seen!r}, not in its DELETE"
    locker.rollback()
    return None


@pytest.mark.chaos
@pytest.mark.django_db(transaction=True)
def test_worker_killed_while_residents_run_ahead(
    user: User, server: ModelServer, redis: PrivateRedis
) -> None:
    """The engine that runs residents ahead of each other (SMALLVILLE_ENGINE=ahead): the
    worker dies while a group's commit is staged ahead of the log and a call is in flight.
    The model answers one resident slowly, so the others (who cannot perceive her) stage
    their steps ahead of the log while her calls are in flight; a moment left to chance
    was missed for minutes on a busy machine. The resent tick starts the run again from
    the staged commits, and the run ends with the log of its twin run by the barrier
    engine."""
    simulation = chaos_simulation(user, seed=23)
    slow = "Isabella Rodriguez"
    server.slow(0.3, prompts={slow: 1.2})  # within the workers' 5 s timeout
    env = worker_env(server, SMALLVILLE_ENGINE="ahead", SMALLVILLE_AHEAD_ORDER="ahead")
    with broker_worker(redis, env) as worker:
        worker.run_start(simulation, STEPS)

        def ahead_of_the_log() -> bool:
            staged = StagedCommit.objects.filter(simulation=simulation).values_list("agents")
            ahead = {name for (names,) in staged for name in names}
            return bool(ahead - {slow}) and bool(calls_in_flight(simulation, chat=True))

        wait_for(ahead_of_the_log, 60, "residents ahead of the log with a call in flight")
        worker.kill()
        left = calls_in_flight(simulation)
        server.slow(0)
        worker.start()
        seconds = recovery(
            "worker killed while residents run ahead",
            lambda: step_of(simulation),
            time.monotonic(),
        )
        ends_as_its_twin(simulation, left)
    assert seconds < 30


@pytest.mark.chaos
@pytest.mark.django_db(transaction=True)
def test_calls_a_killed_worker_left_in_flight_are_settled_when_its_lease_lapses(
    user: User, server: ModelServer, redis: PrivateRedis
) -> None:
    """With the default model bounds (a call may be in flight 660 s), the calls a killed
    worker left in flight are settled within the recovery bound of docs/operations.md
    (the lease lapses, then a watchdog of a live worker runs: 11 s after the death, plus
    the new worker's start); meanwhile the usage totals count none of them, and the run's
    totals per task end as its twin's."""
    simulation = chaos_simulation(user, seed=24)
    server.slow(0.3)
    defaults = {
        "SMALLVILLE_LLM_TIMEOUT": "60",
        "SMALLVILLE_LLM_MAX_RETRIES": "4",
        "SMALLVILLE_LLM_MAX_REASKS": "2",
    }
    env = worker_env(server, SMALLVILLE_SHARD_SIZE="1", **defaults)
    cache_holding_leases(redis.url(1), env)
    with broker_worker(redis, env) as worker:
        worker.run_start(simulation, STEPS)
        wait_for(lambda: calls_in_flight(simulation, 0.15), 60, "a model call in flight")
        worker.kill()
        killed = time.monotonic()
        left = calls_in_flight(simulation)
        assert left
        totals = model_call_summary(simulation=simulation)["totals"]
        ended = ModelCall.objects.filter(simulation=simulation, finished_at__isnull=False)
        assert totals["calls"] == ended.count()  # the calls in flight are not counted
        server.slow(0)
        started = time.monotonic()
        worker.start()
        restart = time.monotonic() - started
        still = ModelCall.objects.filter(pk__in=left, finished_at__isnull=True)
        wait_for(lambda: not still.exists(), 60, "the calls left in flight to be settled")
        settled = time.monotonic() - killed
        twin = ends_as_its_twin(simulation, left)
    assert _chat_totals(simulation) == _chat_totals(twin)
    assert settled < 11 + restart, (settled, restart)


def _chat_totals(simulation: Simulation) -> list[dict[str, object]]:
    """The ledger summary's calls and tokens per chat task (the embeddings of queries a
    process keeps are asked again by a new worker)."""
    rows = model_call_summary(simulation=simulation)["by_task"]
    return [
        {"task": r["task"], "calls": r["calls"], "tokens": r["tokens"]}
        for r in rows
        if r["task"] != EMBEDDING_TASK
    ]
