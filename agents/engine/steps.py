"""Agent steps: fan a tick out to shards, decide each agent from the committed state, and
stage the decisions; the shard that completes the step asks for the commit."""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import close_old_connections

from llm.port import calls_for_step, fallbacks_collected
from memories.services import memories_embed, memories_embed_ahead
from world.eventlog import EventDraft
from world.models import Agent, Simulation, SimulationStatus
from world.rows import RowReader
from world.selectors import town_cached
from world.services import simulation_set_status

from ..cognition import Cognition, StepContext, cognition_for
from ..decisions import (
    Staged,
    decisions_all_stored,
    decisions_store,
    decisions_stored,
    decisions_stored_names,
)
from ..dispatch import AgentSteps, TickCommit, send
from ..leases import lease_held
from .commit import hand_on_lost_tick, one_shard, tick_commit
from .failures import TRANSIENT

log = logging.getLogger(__name__)

# Agent fields cognition does not read every step; loading them is most of a snapshot's bytes.
COLD_FIELDS = ("seed_statements",)

_HOT = (*COLD_FIELDS, "spatial_memory")  # read when used
_READ_ALL = RowReader(Agent, where="simulation_id = %s", order="name", exclude=_HOT)
_READ_NAMED = RowReader(
    Agent, where="simulation_id = %s AND name = ANY(%s)", order="name", exclude=_HOT
)

_context_cache: dict[tuple[int, int, int], StepContext] = {}
# Agent id -> (spatial_version, spatial memory): read again only when it changed.
_spatial_cache: dict[int, tuple[int, dict[str, Any]]] = {}


def _context_for(simulation: Simulation, step: int) -> StepContext:
    """The state committed at `step`, loaded once per process for all its shards: keyed by
    the newest event's seq too, so anything appended since (a user's event) reloads it."""
    key = (simulation.pk, step, simulation.last_seq)
    if key not in _context_cache:
        _context_cache.clear()
        agents = agents_read(simulation=simulation)
        _context_cache[key] = StepContext(
            simulation=simulation,
            town=simulation.town,
            step=step,
            agents={a.name: a for a in agents},
        )
    return _context_cache[key]


def agents_read(*, simulation: Simulation, names: Sequence[str] | None = None) -> list[Agent]:
    """The simulation's agents (or the named ones) as committed, for cognition to read;
    each one's spatial memory is read again only when its version changed."""
    if names is None:
        agents = _READ_ALL([simulation.pk])
    else:
        agents = _READ_NAMED([simulation.pk, list(names)])
    if len(_spatial_cache) > 10_000:
        _spatial_cache.clear()  # a long-lived worker that has seen many simulations
    stale = [a.pk for a in agents if _spatial_cache.get(a.pk, (-1, {}))[0] != a.spatial_version]
    if stale:
        fresh = Agent.objects.filter(pk__in=stale).values_list(
            "pk", "spatial_version", "spatial_memory"
        )
        _spatial_cache.update({pk: (version, memory) for pk, version, memory in fresh})
    for a in agents:
        version, memory = _spatial_cache.get(a.pk, (-1, {}))
        if version == a.spatial_version:  # else (changed meanwhile) read when used
            a.spatial_memory = memory  # shared between steps: cognition only reads it
    return agents


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
    """Fan the agents of step `step` out to agent-step units of work; under the engine
    that runs residents ahead (or with residents still ahead from it), run them all."""
    from .ahead import ahead_engine, ahead_run, staged_steps  # it builds on this module

    if ahead_engine() or staged_steps(simulation_id=simulation_id):
        ahead_run(simulation_id=simulation_id)
        return
    simulation = _running_at(simulation_id, step)
    if simulation is None:
        if redelivered and one_shard(simulation_id):  # else `tick_commit` commits the step
            hand_on_lost_tick(simulation_id, step)
        return
    names = list(
        Agent.objects.filter(simulation=simulation).order_by("name").values_list("name", flat=True)
    )
    shards = shards_of(names, settings.SMALLVILLE_SHARD_SIZE)
    if len(shards) <= 1:
        _shard_step(simulation, step, names, commit_inline=True)
        return
    for shard in shards:
        send(AgentSteps(simulation_id, step, tuple(shard)))


def agent_steps(*, simulation_id: int, step: int, names: Sequence[str]) -> None:
    """Decide step `step` for the named agents (one shard of several); store each decision
    once, and ask for the commit when the step's last decision is stored.

    A shard whose worker is still on it (its lease is live) is not decided twice: the
    broker delivers a task again when it runs past the visibility timeout, which a slow
    model makes common. The second delivery waits until the first stores the decisions
    (nothing left to do) or its lease lapses (its worker died: this one takes over)."""
    key = shard_lease(simulation_id, step, names)
    while _lease_live(key):
        if _running_at(simulation_id, step) is None:
            return  # a stale copy: the step is committed (its copies would renew the lease)
        if set(names) <= set(decisions_stored_names(simulation_id=simulation_id, step=step)):
            return
        time.sleep(SHARD_WAIT_SECONDS)
    with lease_held(key):
        simulation = _running_at(simulation_id, step)
        if simulation is not None:
            _shard_step(simulation, step, list(names), commit_inline=False)


SHARD_WAIT_SECONDS = 1.0


def shard_lease(simulation_id: int, step: int, names: Sequence[str]) -> str:
    digest = hashlib.sha1("\n".join(names).encode()).hexdigest()[:16]
    return f"smallville:lease:shard:{simulation_id}:{step}:{digest}"


def _lease_live(key: str) -> bool:
    """Whether a worker holds `key`; False when the cache cannot say (the work is then
    done twice, harmlessly: each decision is stored once)."""
    try:
        return cache.get(key) is not None
    except Exception:
        return False


def _shard_step(
    simulation: Simulation, step: int, names: list[str], *, commit_inline: bool
) -> None:
    """With `commit_inline` the shard is every agent (`names` in name order, as read when
    the simulation's log ended at `simulation.last_seq`), and the commit runs here on the
    decisions in hand instead of reading them back."""
    stored = decisions_stored(simulation=simulation, step=step, names=names)
    todo = [name for name in names if name not in stored]
    if todo:
        context = _context_for(simulation, step)
        kept = False
        try:
            cognition = cognition_for(simulation)
            decisions: list[dict[str, object]] = []
            made: list[EventDraft] = []
            for name, drafts in _decide_all(cognition, context, todo):
                if isinstance(drafts, TRANSIENT):
                    raise drafts  # the database or cache is away: the step is sent again
                if isinstance(drafts, BaseException):
                    simulation_fail(simulation=simulation, step=step, agent=name, error=drafts)
                    return
                made += drafts
                events = [{"kind": d.kind, "agent": d.agent, "payload": d.payload} for d in drafts]
                decisions.append({"agent": name, "events": events})
                stored[name] = events
            try:
                memories_embed(simulation=simulation, events=made)
            except TRANSIENT:
                raise
            except Exception as exc:  # the embedding server failed, or the budget is spent
                simulation_fail(
                    simulation=simulation, step=step, agent="embedding its memories", error=exc
                )
                return
            decisions_store(simulation_id=simulation.pk, step=step, decisions=decisions)
            kept = True
        finally:
            if not kept:
                # Another attempt in this process reads the state afresh, whatever the
                # failed one read or cached of it.
                _context_cache.clear()
    if commit_inline:
        staged = Staged(seq=simulation.last_seq, events=[stored[name] for name in names])
        tick_commit(simulation_id=simulation.pk, step=step, staged=staged)
    elif decisions_all_stored(simulation_id=simulation.pk, step=step):
        send(TickCommit(simulation.pk, step))


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
        with fallbacks_collected() as fallbacks, calls_for_step(context.step, name):
            drafts = cognition.decide(context=context, agent=context.agents[name])
        for draft in drafts if fallbacks else []:
            # The events say which of their calls took the task's fail-safe answer.
            draft.payload["fallbacks"] = fallbacks
        if _agent_threads() > 1:
            # Others still wait on the model: embed this one's memories meanwhile.
            memories_embed_ahead(events=drafts)
        return name, drafts
    except Exception as exc:
        if threading.current_thread() is not threading.main_thread():
            # A pool thread keeps its connection only while healthy: checked after a
            # failure, not before every decision (a health check is a round trip).
            close_old_connections()
        return name, exc


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
