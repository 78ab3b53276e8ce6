"""What the chaos tests share: the simulation they disturb, the worker they kill, what an
undisturbed twin must match, the ledger's books, and the recovery clock."""

from __future__ import annotations

import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.cache.backends.redis import RedisCache
from django.db.models import Sum
from django.utils import timezone

from agents.services import simulation_create_from_base
from llm.ahead import ahead_settle
from llm.models import ModelCall, ModelUsage
from llm.settlement import ABANDONED
from memories.embeddings import EMBEDDING_TASK
from runtime import engine
from tests.factories import N3
from tests.model_server import ModelServer
from tests.runtime import workers
from world.eventlog import simulation_snapshot
from world.leases import EPOCH_KEY
from world.models import Event, Simulation, SimulationStatus

START = datetime(2023, 2, 13, 7, 30, tzinfo=UTC)
# The model port's bounds in the workers: a call is in flight 5 s at most (one attempt),
# so the watchdog settles a call a killed worker left in flight 9 s after it began. (The
# stand-in answering here reads a resident's first day plan from its identity: up to 3.3 s
# measured with three asked at once on two busy cores.)
MODEL_BOUNDS = {
    "SMALLVILLE_LLM_TIMEOUT": "5",
    "SMALLVILLE_LLM_MAX_RETRIES": "0",
    "SMALLVILLE_LLM_MAX_REASKS": "0",
}
STEPS = 45  # each run: 7.5 sim minutes: the day planned in the first step, and the first
# memories rated (importance_delay 30), so a kill meets ratings sent ahead too
# Measured recoveries, for the summary at the end of the run: (scenario, seconds).
RECOVERIES: list[tuple[str, float]] = []
# Other figures a run measured, for the same summary: (what, value).
FIGURES: list[tuple[str, str]] = []


def chaos_simulation(user: User, seed: int, **config: Any) -> Simulation:
    """Three residents with the paper's cognition, from 07:30."""
    return simulation_create_from_base(
        owner=user, base=N3, seed=seed, start_time=START, config={"cognition": "paper", **config}
    )


def twin_of(simulation: Simulation) -> Simulation:
    """A new simulation of the same base, seed, start and config."""
    assert simulation.base is not None
    return simulation_create_from_base(
        owner=simulation.owner,
        base=simulation.base,
        seed=simulation.seed,
        start_time=simulation.start_time,
        sec_per_step=simulation.sec_per_step,
        config=simulation.config,
    )


def model_settings(server: ModelServer) -> dict[str, str]:
    """The model and embedding settings for the server, whose policy answers need each
    call's task (SMALLVILLE_LLM_SEND_TASK)."""
    return {
        **server.llm_settings(),
        **server.embedding_settings(),
        "SMALLVILLE_LLM_SEND_TASK": "true",
    }


def worker_env(server: ModelServer, **extra: str) -> dict[str, str]:
    """A worker on the test database and the model server, with the default recovery
    settings (lease, stall, watchdog, visibility timeout), and cache keys of its own."""
    return {
        "DATABASE_URL": workers.test_database_url(),
        **model_settings(server),
        **MODEL_BOUNDS,
        "SMALLVILLE_CACHE_PREFIX": f"chaos-{uuid.uuid4().hex[:8]}",
        **extra,
    }


def cache_holding_leases(cache_url: str, env: dict[str, str]) -> None:
    """The workers' cache as a deployment's has been: holding leases for longer than a
    lease period. A cache that has just begun (here: a fresh key prefix) counts every
    process as alive for a lease period (`world.leases.holders_alive`, a Redis emptied by
    a restart), which would add that period to a settlement the test times."""
    cache = RedisCache(cache_url, {"KEY_PREFIX": env["SMALLVILLE_CACHE_PREFIX"]})
    begun = time.time() - 2 * settings.SMALLVILLE_LEASE_SECONDS
    cache.add(EPOCH_KEY, begun, timeout=None)


def reload(simulation: Simulation) -> Simulation:
    simulation.refresh_from_db()
    return simulation


def step_of(simulation: Simulation) -> int:
    return reload(simulation).step


def wait_for(predicate: Callable[[], Any], timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = predicate()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


def recovery(scenario: str, step_now: Callable[[], int], back_at: float) -> float:
    """Seconds from the dependency's return (`back_at`, monotonic) until the simulation's
    step next advances past where it stood then; recorded for the run's summary."""
    stood = step_now()
    wait_for(lambda: step_now() > stood, 90, f"{scenario}: the next step")
    seconds = time.monotonic() - back_at
    RECOVERIES.append((scenario, seconds))
    return seconds


@dataclass
class Facts:
    """What a run produced: its log (in seq order, without the creation event, whose
    payload names the simulation) and every projection (agents, memories, plans...)."""

    log: list[tuple[Any, ...]]
    snapshot: dict[str, Any]


def facts(simulation: Simulation) -> Facts:
    log = list(
        Event.objects.filter(simulation=simulation, seq__gt=1)
        .order_by("seq")
        .values_list("seq", "step", "sim_time", "kind", "agent", "payload")
    )
    return Facts(log=log, snapshot=simulation_snapshot(simulation=simulation))


def calls_in_flight(
    simulation: Simulation, younger_than: float | None = None, *, chat: bool = False
) -> list[int]:
    """The simulation's calls in flight; `chat`: only chat calls (the server answers
    embeddings at once); with `younger_than`, only the chat calls admitted less than that
    many seconds ago."""
    calls = ModelCall.objects.filter(simulation=simulation, finished_at__isnull=True)
    if chat or younger_than is not None:
        calls = calls.exclude(task=EMBEDDING_TASK)
    if younger_than is not None:
        calls = calls.filter(created_at__gt=timezone.now() - timedelta(seconds=younger_than))
    return list(calls.values_list("pk", flat=True))


def ledger_books(simulation: Simulation) -> dict[str, Any]:
    """The simulation's usage counters next to what its ledger rows add up to: the calls
    that ended (billed) and those settled as abandoned (not billed); none in flight."""
    calls = ModelCall.objects.filter(simulation=simulation)
    billed = calls.filter(finished_at__isnull=False).exclude(error=ABANDONED)
    tokens = billed.aggregate(p=Sum("prompt_tokens"), c=Sum("completion_tokens"))
    usage = ModelUsage.objects.filter(simulation=simulation).first()
    return {
        "in_flight": calls.filter(finished_at__isnull=True).count(),
        "usage": (usage.calls, usage.tokens) if usage else (0, 0),
        "billed": (billed.count(), (tokens["p"] or 0) + (tokens["c"] or 0)),
        "abandoned": calls.filter(error=ABANDONED).count(),
    }


def ledger_settled(simulation: Simulation, left: list[int], timeout: float = 30) -> None:
    """Once no call is in flight (the watchdog settles what a crash left), the calls `left`
    in flight by the crash are settled as abandoned and the usage counts exactly the calls
    that ended: none twice, none that did not happen."""
    books = wait_for(
        lambda: (books := ledger_books(simulation))["in_flight"] == 0 and books,
        timeout,
        "the calls left in flight to be settled",
    )
    assert books["usage"] == books["billed"], books
    abandoned = ModelCall.objects.filter(pk__in=left).exclude(error=ABANDONED)
    assert not abandoned.exists(), list(abandoned.values("pk", "task", "error"))


def billed(simulation: Simulation) -> Counter[tuple[str, str]]:
    """The chat calls the simulation's ledger bills, as (task, prompt as sent): each call
    made and ended, none abandoned. (Embeddings are left out: each process keeps the
    vectors of the queries it embedded, so a new worker embeds some again.)"""
    calls = ModelCall.objects.filter(simulation=simulation, finished_at__isnull=False)
    calls = calls.exclude(error=ABANDONED).exclude(task=EMBEDDING_TASK)
    return Counter(calls.values_list("task", "prompt"))


def finished(simulation: Simulation, timeout: float = 120) -> Simulation:
    wait_for(lambda: reload(simulation).status != SimulationStatus.RUNNING, timeout, "the run")
    return simulation


def ends_as_its_twin(
    simulation: Simulation, left: list[int], same_calls: bool = True
) -> Simulation:
    """The run reaches its target; its ledger is settled (`left`: the calls the fault left
    in flight); its log and projections are those of a twin run undisturbed, inline, and
    its ledger bills the calls of the twin's: no call twice, whatever the fault redid. A
    call the twin bills and the run does not must be one the run abandoned (settled as
    such after the fault): a call sent ahead for a step past the run's end is not asked
    again by the run."""
    assert finished(simulation).status == SimulationStatus.IDLE, simulation.status_reason
    assert simulation.step == STEPS
    ledger_settled(simulation, left)
    twin = engine.simulation_run_inline(simulation=twin_of(simulation), steps=STEPS)
    assert facts(simulation) == facts(twin)
    ahead_settle()  # the twin's calls sent ahead for steps past the run
    ledger_settled(twin, [])
    ran, undisturbed = billed(simulation), billed(twin)
    assert ran - undisturbed == Counter() or not same_calls, ran - undisturbed
    # Every call the run abandoned, not only those read as in flight just after the fault:
    # a call admitted as a worker is killed can commit its row a moment after the kill
    # (Postgres finishes a statement it has whole), after `left` was read.
    abandoned = set(
        ModelCall.objects.filter(simulation=simulation, error=ABANDONED).values_list(
            "task", "prompt"
        )
    )
    missing = undisturbed - ran
    assert set(missing) <= abandoned and max(missing.values(), default=1) == 1, missing
    return twin
