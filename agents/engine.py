"""The tick engine: run control, agent steps into staged decisions, and the tick commit.

A run is claimed by a conditional update (`idle|paused|failed -> running`), so concurrent
requests cannot start two chains of ticks. Tick t of a simulation:

1. `tick_start` splits the agents into shards; each shard is one agent-step task (run
   inline when there is only one shard, saving two broker round trips).
2. `agent_steps` reads the state committed at t, asks cognition for each agent's events,
   and stores them as `Decision` rows keyed (simulation, step, agent); rows that exist
   are not computed again, so a redelivered task does nothing twice. The shard that sees
   every decision of step t stored asks for the commit.
3. `tick_commit` takes the simulation row lock, checks the step is still t, appends all
   decisions' events in agent-name order plus `simulation.stepped`, updates projections
   and deletes the decisions: one transaction. The next tick is enqueued on commit.

Every task re-reads the database and checks `status` and `step` first, so a duplicate or a
late task finds nothing to do.
"""

from __future__ import annotations

import contextvars
import dataclasses
import functools
import json
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import close_old_connections, connection, transaction
from django.db.models import F, OuterRef, Q, Subquery
from django.utils import timezone

from llm.models import ModelCall
from memories.services import memories_embed
from world.eventlog import EventDraft, events_append
from world.models import Agent, Event, Simulation, SimulationStatus
from world.projections import SIMULATION_STEPPED
from world.selectors import town_cached
from world.services import simulation_set_status

from .cognition import Cognition, StepContext, cognition_for
from .models import Decision

log = logging.getLogger(__name__)

# Agent fields cognition does not read every step; loading them is most of a snapshot's bytes.
COLD_FIELDS = ("seed_statements",)

STARTABLE = (
    SimulationStatus.IDLE,
    SimulationStatus.PAUSED,
    SimulationStatus.FAILED,
    SimulationStatus.BUDGET_EXHAUSTED,
)


class RunRefused(ValueError):
    """The run request cannot be honoured (a bad target, nothing to resume)."""


class RunConflict(RunRefused):
    """The simulation's status does not allow it (already running, or not running)."""


# How work is handed on: `send` (set by agents.tasks) puts it on the broker; `inline`
# runs it in this process (`simulation_run_inline`). Other modules add routes too.
Enqueue = Callable[..., object]
_enqueue: dict[str, Enqueue] = {}
_inline: dict[str, Enqueue] = {}


def enqueue_register(name: str, send: Enqueue) -> None:
    _enqueue[name] = send


def inline_register(name: str, run: Enqueue) -> None:
    _inline[name] = run


def _send_on_commit(name: str, *args: object) -> None:
    transaction.on_commit(lambda: _enqueue[name](*args))


class NotReady(Exception):
    """A commit hook's work for this step is not done yet: the commit is tried again soon."""


# Hooks of other modules into the commit: `CommitHook`s see (and may change) the drafts of
# a step before they are appended; `AfterCommit`s run once the step is committed.
CommitHook = Callable[[Simulation, int, list[EventDraft]], list[EventDraft]]
AfterCommit = Callable[[Simulation, int, list[Event]], None]
_commit_hooks: list[CommitHook] = []
_after_commit: list[AfterCommit] = []


@dataclass(frozen=True)
class CommittedAgent:
    """An agent's committed state, as the commit hooks read it."""

    name: str
    user_controlled: bool
    busy_until_step: int
    action_address: str
    importance_since_reflection: int
    reflection_threshold: int
    reflection_due_step: int | None


_COMMITTED_FIELDS = [f.name for f in dataclasses.fields(CommittedAgent)]
# While a tick commit runs its hooks: simulation id -> its agents, read once for all hooks.
_commit_view: contextvars.ContextVar[dict[int, dict[str, CommittedAgent]] | None] = (
    contextvars.ContextVar("commit_view", default=None)
)


def agents_at_commit(simulation: Simulation) -> dict[str, CommittedAgent]:
    """Every agent of `simulation` in name order, read once per tick commit (under its
    row lock, so the hooks of one commit see the same rows) and fresh outside one."""
    view = _commit_view.get()
    if view is not None and simulation.pk in view:
        return view[simulation.pk]
    rows = Agent.objects.filter(simulation=simulation).order_by("name")
    agents = {values[0]: CommittedAgent(*values) for values in rows.values_list(*_COMMITTED_FIELDS)}
    if view is not None:
        view[simulation.pk] = agents
    return agents


def commit_hook_register(hook: CommitHook) -> None:
    if hook not in _commit_hooks:
        _commit_hooks.append(hook)


def after_commit_register(hook: AfterCommit) -> None:
    if hook not in _after_commit:
        _after_commit.append(hook)


def target_step_for(
    *, simulation: Simulation, steps: int | None = None, until: datetime | None = None
) -> int:
    if (steps is None) == (until is None):
        raise RunRefused("give either steps or until")
    if steps is not None:
        if steps < 1:
            raise RunRefused("steps must be at least 1")
        return simulation.step + steps
    assert until is not None
    seconds = (until - simulation.start_time).total_seconds()
    target = int(seconds // simulation.sec_per_step)
    if target <= simulation.step:
        raise RunRefused(
            f"until must be after the current sim time {simulation.sim_time.isoformat()}"
        )
    return target


def simulation_run(
    *, simulation: Simulation, steps: int | None = None, until: datetime | None = None
) -> Simulation:
    """Start running to a target step; refused if the simulation is already running."""
    target = target_step_for(simulation=simulation, steps=steps, until=until)
    with transaction.atomic():
        claimed = Simulation.objects.filter(pk=simulation.pk, status__in=STARTABLE).update(
            status=SimulationStatus.RUNNING,
            status_reason="",
            target_step=target,
            run_started_step=F("step"),
            run_started_at=timezone.now(),
        )
        if not claimed:
            raise RunConflict(f"simulation {simulation.pk} is already running")
        simulation.refresh_from_db()
        _send_on_commit("tick", simulation.pk, simulation.step)
    return simulation


def simulation_pause(*, simulation: Simulation) -> Simulation:
    """Stop after the tick in flight commits."""
    if not simulation_set_status(
        simulation=simulation,
        status=SimulationStatus.PAUSED,
        reason="paused by request",
        expected=[SimulationStatus.RUNNING],
    ):
        raise RunConflict(f"simulation {simulation.pk} is not running")
    return simulation


def steps_to_target(*, simulation: Simulation) -> int:
    """Steps left of the last run, for resuming it."""
    simulation.refresh_from_db()
    if simulation.target_step is None or simulation.target_step <= simulation.step:
        raise RunRefused("nothing to resume: the run reached its target; start a new run")
    return simulation.target_step - simulation.step


def simulation_resume(*, simulation: Simulation) -> Simulation:
    """Continue a paused, failed or budget-stopped run towards its target."""
    return simulation_run(simulation=simulation, steps=steps_to_target(simulation=simulation))


def simulation_run_inline(
    *, simulation: Simulation, steps: int | None = None, until: datetime | None = None
) -> Simulation:
    """Run to the target in this process, no broker or worker: tests, debugging, baselines.

    Swaps the engine's enqueue functions for a local queue while it runs; not for use in
    a process that also serves Celery tasks.
    """
    pending: deque[tuple[str, tuple[object, ...]]] = deque()
    saved = dict(_enqueue)
    try:
        for name in _inline:
            _enqueue[name] = lambda *args, name=name: pending.append((name, args))
        simulation_run(simulation=simulation, steps=steps, until=until)
        while pending:
            name, args = pending.popleft()
            _inline[name](*args)
    finally:
        _enqueue.clear()
        _enqueue.update(saved)
    simulation.refresh_from_db()
    return simulation


_context_cache: dict[tuple[int, int, int], StepContext] = {}
# Agent id -> (spatial_version, spatial memory): read again only when it changed.
_spatial_cache: dict[int, tuple[int, dict[str, Any]]] = {}


def _context_for(simulation: Simulation, step: int) -> StepContext:
    """The state committed at `step`, loaded once per process for all its shards: keyed by
    the newest event's seq too, so anything appended since (a user's event) reloads it."""
    key = (simulation.pk, step, simulation.last_seq)
    if key not in _context_cache:
        _context_cache.clear()
        agents = list(
            Agent.objects.filter(simulation=simulation).defer(*COLD_FIELDS, "spatial_memory")
        )
        if len(_spatial_cache) > 10_000:
            _spatial_cache.clear()  # a long-lived worker that has seen many simulations
        stale = [a.pk for a in agents if _spatial_cache.get(a.pk, (-1, {}))[0] != a.spatial_version]
        if stale:
            rows = Agent.objects.filter(pk__in=stale).values_list(
                "pk", "spatial_version", "spatial_memory"
            )
            _spatial_cache.update({pk: (version, memory) for pk, version, memory in rows})
        for a in agents:
            version, memory = _spatial_cache.get(a.pk, (-1, {}))
            if version == a.spatial_version:  # else (changed meanwhile) read when used
                a.spatial_memory = memory  # shared between steps: cognition only reads it
        _context_cache[key] = StepContext(
            simulation=simulation,
            town=simulation.town,
            step=step,
            agents={a.name: a for a in agents},
        )
    return _context_cache[key]


def _running_at(simulation_id: int, step: int) -> Simulation | None:
    simulation = Simulation.objects.filter(pk=simulation_id).first()
    if simulation is None or simulation.status != SimulationStatus.RUNNING:
        return None
    if simulation.step != step:
        return None
    simulation.town = town_cached(pk=simulation.town_id)
    return simulation


def shards_of(names: Sequence[str], size: int) -> list[list[str]]:
    return [list(names[i : i + size]) for i in range(0, len(names), size)]


def tick_start(*, simulation_id: int, step: int, redelivered: bool = False) -> None:
    """Fan the agents of step `step` out to agent-step tasks."""
    simulation = _running_at(simulation_id, step)
    if simulation is None:
        if redelivered and _one_shard(simulation_id):  # else `tick_commit` commits the step
            _hand_on_lost_tick(simulation_id, step)
        return
    names = list(
        Agent.objects.filter(simulation=simulation).order_by("name").values_list("name", flat=True)
    )
    shards = shards_of(names, settings.SMALLVILLE_SHARD_SIZE)
    if len(shards) <= 1:
        _shard_step(simulation, step, names, commit_inline=True)
        return
    for shard in shards:
        _enqueue["agent_steps"](simulation_id, step, shard)


@dataclass(frozen=True)
class StepFailure:
    agent: str
    error: BaseException


def agent_steps(*, simulation_id: int, step: int, names: list[str]) -> None:
    """Decide step `step` for the named agents (one shard of several); store each decision
    once, and ask for the commit when the step's last decision is stored."""
    simulation = _running_at(simulation_id, step)
    if simulation is not None:
        _shard_step(simulation, step, names, commit_inline=False)


def _shard_step(
    simulation: Simulation, step: int, names: list[str], *, commit_inline: bool
) -> None:
    """With `commit_inline` the shard is every agent (`names` in name order, as read when
    the simulation's log ended at `simulation.last_seq`), and the commit runs here on the
    decisions in hand instead of reading them back."""
    stored = dict(
        Decision.objects.filter(simulation=simulation, step=step, agent__in=names).values_list(
            "agent", "events"
        )
    )
    todo = [name for name in names if name not in stored]
    if todo:
        context = _context_for(simulation, step)
        cognition = cognition_for(simulation)
        decisions: list[dict[str, object]] = []
        made: list[EventDraft] = []
        for name, drafts in _decide_all(cognition, context, todo):
            if isinstance(drafts, BaseException):
                simulation_fail(simulation=simulation, step=step, agent=name, error=drafts)
                return
            made += drafts
            events = [{"kind": d.kind, "agent": d.agent, "payload": d.payload} for d in drafts]
            decisions.append({"agent": name, "events": events})
            stored[name] = events
        try:
            memories_embed(simulation=simulation, events=made)
        except Exception as exc:  # the embedding server failed, or the budget is spent
            simulation_fail(
                simulation=simulation, step=step, agent="embedding its memories", error=exc
            )
            return
        _decisions_store(simulation.pk, step, decisions)
    if commit_inline:
        staged = Staged(seq=simulation.last_seq, events=[stored[name] for name in names])
        tick_commit(simulation_id=simulation.pk, step=step, staged=staged)
    elif _all_decided(simulation.pk, step):
        _enqueue["tick_commit"](simulation.pk, step)


@dataclass(frozen=True)
class Staged:
    """Every agent's decided events, in name order, as of the log ending at `seq`."""

    seq: int
    events: list[list[dict[str, Any]]]


# One statement for a shard's decisions, sent as one JSON parameter; a decision already
# stored (a redelivered task) is left as it is.
_DECISIONS_SQL = """
INSERT INTO agents_decision (simulation_id, step, agent, events, created_at)
SELECT %s, %s, d.agent, d.events, now()
FROM jsonb_to_recordset(%s::jsonb) AS d(agent text, events jsonb)
ON CONFLICT (simulation_id, step, agent) DO NOTHING
"""
_ALL_DECIDED_SQL = """
SELECT (SELECT count(*) FROM agents_decision WHERE simulation_id = %s AND step = %s)
     = (SELECT count(*) FROM agents_agent WHERE simulation_id = %s)
"""


def decision_stand_still(*, simulation: Simulation, agent: str) -> None:
    """An agent joining a running simulation (read under its row lock) stands still for
    the step in flight: the others' decisions were asked for without it, and the step
    commits once every agent has one."""
    if simulation.status in (SimulationStatus.RUNNING, SimulationStatus.PAUSED):
        _decisions_store(simulation.pk, simulation.step, [{"agent": agent, "events": []}])


def _decisions_store(simulation_id: int, step: int, decisions: list[dict[str, object]]) -> None:
    with connection.cursor() as cursor:
        cursor.execute(_DECISIONS_SQL, [simulation_id, step, json.dumps(decisions)])


def _all_decided(simulation_id: int, step: int) -> bool:
    with connection.cursor() as cursor:
        cursor.execute(_ALL_DECIDED_SQL, [simulation_id, step, simulation_id])
        row = cursor.fetchone()
    return bool(row and row[0])


_pool: ThreadPoolExecutor | None = None


def _agent_threads() -> int:
    """Agents decided at once in a shard: model calls wait on the network, so with a model
    server they overlap; the offline backend is CPU-bound and gains nothing from threads."""
    if settings.SMALLVILLE_LLM_BACKEND == "offline":
        return 1
    return max(1, settings.SMALLVILLE_AGENT_THREADS)


def _decide_one(
    cognition: Cognition, context: StepContext, name: str
) -> tuple[str, list[EventDraft] | BaseException]:
    try:
        return name, cognition.decide(context=context, agent=context.agents[name])
    except Exception as exc:
        return name, exc
    finally:
        if threading.current_thread() is not threading.main_thread():
            close_old_connections()  # pool threads keep theirs only while healthy


def _decide_all(
    cognition: Cognition, context: StepContext, names: list[str]
) -> list[tuple[str, list[EventDraft] | BaseException]]:
    """Each agent's decision, in the order of `names` whatever order they finish in."""
    global _pool
    threads = _agent_threads()
    if threads == 1 or len(names) == 1:
        return [_decide_one(cognition, context, name) for name in names]
    if _pool is None:
        _pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="agent-step")
    return list(_pool.map(lambda name: _decide_one(cognition, context, name), names))


def simulation_fail(*, simulation: Simulation, step: int, agent: str, error: BaseException) -> None:
    """Stop the run at its last committed step; nothing of step `step` is applied."""
    log.exception("agent step failed", exc_info=error)
    simulation.refresh_from_db()
    if simulation.status == SimulationStatus.BUDGET_EXHAUSTED:
        return  # the language-model port already stopped it, with its own reason
    simulation_set_status(
        simulation=simulation,
        status=SimulationStatus.FAILED,
        reason=f"step {step + 1}, {agent}: {type(error).__name__}: {error}",
        expected=[SimulationStatus.RUNNING],
    )


def tick_commit(
    *, simulation_id: int, step: int, staged: Staged | None = None, redelivered: bool = False
) -> None:
    """Apply every decision of step `step` in one transaction and advance the clock.

    `staged` decisions are used when nothing was appended to the log since they were
    made (so no agent joined meanwhile); else the stored ones are read back."""
    with transaction.atomic():
        simulation = Simulation.objects.select_for_update().get(pk=simulation_id)
        if simulation.step != step or simulation.status not in (
            SimulationStatus.RUNNING,
            SimulationStatus.PAUSED,
        ):
            if redelivered:
                _hand_on_lost_tick(simulation_id, step)
            return
        if staged is not None and staged.seq == simulation.last_seq:
            decided = staged.events
        else:
            decisions = Decision.objects.filter(simulation=simulation, step=step).order_by("agent")
            decided = list(decisions.values_list("events", flat=True))
            if len(decided) != Agent.objects.filter(simulation=simulation).count():
                return
        drafts = [
            EventDraft(kind=e["kind"], agent=e["agent"], payload=e["payload"])
            for agent_events in decided
            for e in agent_events
        ]
        token = _commit_view.set({})
        try:
            for hook in _commit_hooks:
                drafts = hook(simulation, step, drafts)
        except NotReady:
            _send_on_commit("tick_commit_later", simulation.pk, step)
            return
        finally:
            _commit_view.reset(token)
        drafts.append(EventDraft(kind=SIMULATION_STEPPED, payload={"step": step + 1}))
        events = events_append(simulation=simulation, drafts=drafts, step=step + 1)
        Decision.objects.filter(simulation=simulation, step=step).delete()
        for after in _after_commit:
            transaction.on_commit(functools.partial(after, simulation, step + 1, events))
        if simulation.status != SimulationStatus.RUNNING:
            return
        if simulation.target_step is not None and simulation.step >= simulation.target_step:
            simulation_set_status(
                simulation=simulation,
                status=SimulationStatus.IDLE,
                reason=f"reached step {simulation.step}",
                expected=[SimulationStatus.RUNNING],
            )
            return
        _send_on_commit("tick", simulation.pk, simulation.step)


def _one_shard(simulation_id: int) -> bool:
    agents = Agent.objects.filter(simulation_id=simulation_id).count()
    return agents <= settings.SMALLVILLE_SHARD_SIZE


def _hand_on_lost_tick(simulation_id: int, step: int) -> None:
    """A redelivered task of step `step` finds the step committed. Its worker may have died
    between that commit and sending the next tick, which nothing else would send: send it
    again while the run still stands at step + 1 (a duplicate tick finds its work done)."""
    if Simulation.objects.filter(
        pk=simulation_id, status=SimulationStatus.RUNNING, step=step + 1
    ).exists():
        log.warning("simulation %s: tick %s sent again after a redelivery", simulation_id, step + 1)
        _send_on_commit("tick", simulation_id, step + 1)


def runs_resume_stalled(*, stall_seconds: float) -> list[int]:
    """Send the tick again of every running simulation that made no progress (no event, no
    stored decision) for `stall_seconds`: its tick was lost. Once per stalled step, by
    whichever worker's watchdog gets there first; a duplicate tick finds its work done."""
    cutoff = timezone.now() - timedelta(seconds=stall_seconds)
    newest_event = Event.objects.filter(simulation=OuterRef("pk")).order_by("-seq")
    newest_decision = Decision.objects.filter(simulation=OuterRef("pk")).order_by("-created_at")
    stalled = (
        Simulation.objects.filter(status=SimulationStatus.RUNNING, run_started_at__lt=cutoff)
        .annotate(
            event_at=Subquery(newest_event.values("created_at")[:1]),
            decided_at=Subquery(newest_decision.values("created_at")[:1]),
        )
        .filter(Q(event_at__isnull=True) | Q(event_at__lt=cutoff))
        .filter(Q(decided_at__isnull=True) | Q(decided_at__lt=cutoff))
        .values_list("pk", "step")
    )
    resent = []
    for simulation_id, step in stalled:
        key = f"smallville:stalled:{simulation_id}:{step}"
        if cache.add(key, 1, timeout=max(1, int(stall_seconds))):
            log.warning(
                "simulation %s: no progress at step %s; its tick sent again", simulation_id, step
            )
            _enqueue["tick"](simulation_id, step)
            resent.append(simulation_id)
    return resent


def _commit_later(simulation_id: int, step: int) -> None:
    time.sleep(0.05)  # in process: let the work the commit waits for go on
    tick_commit(simulation_id=simulation_id, step=step)


inline_register("tick", lambda sim, step: tick_start(simulation_id=sim, step=step))
inline_register(
    "agent_steps", lambda sim, step, names: agent_steps(simulation_id=sim, step=step, names=names)
)
inline_register("tick_commit", lambda sim, step: tick_commit(simulation_id=sim, step=step))
inline_register("tick_commit_later", _commit_later)


@dataclass(frozen=True)
class Progress:
    status: str
    reason: str
    step: int
    target_step: int | None
    sim_time: datetime
    agent_steps_per_second: float | None
    model_calls: int


def simulation_progress(*, simulation: Simulation) -> Progress:
    simulation.refresh_from_db()
    rate = None
    if simulation.run_started_at and simulation.run_started_step is not None:
        elapsed = (timezone.now() - simulation.run_started_at).total_seconds()
        steps = simulation.step - simulation.run_started_step
        if elapsed > 0 and steps > 0:
            rate = steps * Agent.objects.filter(simulation=simulation).count() / elapsed
    return Progress(
        status=simulation.status,
        reason=simulation.status_reason,
        step=simulation.step,
        target_step=simulation.target_step,
        sim_time=simulation.sim_time,
        agent_steps_per_second=rate,
        model_calls=_model_calls(simulation),
    )


def _model_calls(simulation: Simulation) -> int:
    return ModelCall.objects.filter(simulation=simulation).count()
