"""The barrier engine's steps: fan a tick out to shards, decide each resident from the
state committed at the step, and stage the decisions; the shard that completes the step
asks for the commit (runtime/engine/barrier/commit.py)."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence

from django.conf import settings
from django.core.cache import cache

from agents.cognition import StepContext, cognition_for
from runtime.decisions import (
    Staged,
    decisions_all_stored,
    decisions_store,
    decisions_stored,
    decisions_stored_names,
)
from runtime.dispatch import AgentSteps, TickCommit, send
from runtime.engine.barrier.commit import hand_on_lost_tick, one_shard, tick_commit
from runtime.engine.decide import agents_read, decide_embedded
from runtime.leases import lease_held
from runtime.scenarios import scenarios_apply
from world.models import Agent, Simulation, SimulationStatus
from world.selectors import town_cached

_context_cache: dict[tuple[int, int, int], StepContext] = {}


def _context_for(simulation: Simulation, step: int) -> StepContext:
    """The state committed at `step`, loaded once per process for all its shards: keyed by
    the newest event's seq too, so anything appended since (a user's event) reloads it."""
    key = (simulation.pk, step, simulation.last_seq)
    found = _context_cache.get(key)
    if found is None:
        agents = agents_read(simulation=simulation)
        found = StepContext(
            simulation=simulation,
            town=simulation.town,
            step=step,
            agents={a.name: a for a in agents},
        )
        # Returned from the local: another thread (a threads-pool worker) may clear it.
        _context_cache.clear()
        _context_cache[key] = found
    return found


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
    """Fan the residents of step `step` out to agent-step units of work (decided here
    when they are one shard)."""
    simulation = _running_at(simulation_id, step)
    if simulation is None:
        if redelivered and one_shard(simulation_id):  # else `tick_commit` commits the step
            hand_on_lost_tick(simulation_id, step)
        return
    if scenarios_apply(simulation_id=simulation_id, step=step):
        simulation = _running_at(simulation_id, step)  # the log moved: residents may differ
        if simulation is None:
            return
    names = list(
        Agent.present.filter(simulation=simulation).order_by("name").values_list("name", flat=True)
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
            decided = decide_embedded(simulation, cognition_for(simulation), context, todo)
            if decided is None:
                return
            decisions: list[dict[str, object]] = []
            for name, drafts in decided:
                events = [{"kind": d.kind, "agent": d.agent, "payload": d.payload} for d in drafts]
                decisions.append({"agent": name, "events": events})
                stored[name] = events
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
