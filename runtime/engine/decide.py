"""What both engines share of deciding a step: reading residents as committed, one
resident's decision with its fallbacks collected, many decided at once with their memories
embedded, and failing the run when a decision fails."""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.db import close_old_connections

from agents.cognition import Cognition, StepContext
from kernel.logcontext import about
from kernel.pools import pool
from kernel.tracing import span
from llm.backends import backend_is_remote
from llm.port import calls_for_step, fallbacks_collected
from memories.services import memories_embed, memories_embed_ahead
from runtime.engine.failures import TRANSIENT
from world.eventlog import EventDraft
from world.models import Agent, Simulation, SimulationStatus
from world.rows import RowReader
from world.services import simulation_set_status

log = logging.getLogger(__name__)

Decision = tuple[str, list[EventDraft] | BaseException]
Decided = list[tuple[str, list[EventDraft]]]  # (resident, its drafts), in the order asked

# Agent fields cognition does not read every step; loading them is most of a snapshot's bytes.
COLD_FIELDS = ("seed_statements",)

_HOT = (*COLD_FIELDS, "spatial_memory")  # read when used
_READ_ALL = RowReader(
    Agent, where="simulation_id = %s AND left_step IS NULL", order="name", exclude=_HOT
)
_READ_NAMED = RowReader(
    Agent, where="simulation_id = %s AND name = ANY(%s)", order="name", exclude=_HOT
)

# Agent id -> (spatial_version, spatial memory): read again only when it changed.
_spatial_cache: dict[int, tuple[int, dict[str, Any]]] = {}


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


def agent_threads() -> int:
    """Agents decided at once in a shard: model calls wait on the network, so with a model
    server they overlap; the offline backend is CPU-bound and gains nothing from threads."""
    if not backend_is_remote():
        return 1
    return max(1, settings.SMALLVILLE_AGENT_THREADS)


def decide_one(cognition: Cognition, context: StepContext, name: str) -> Decision:
    try:
        with (
            about(simulation=context.simulation.pk, resident=name, step=context.step),
            span("decide"),
            fallbacks_collected() as fallbacks,
            calls_for_step(context.step, name),
        ):
            drafts = cognition.decide(context=context, agent=context.agents[name])
        for draft in drafts if fallbacks else []:
            # The events say which of their calls took the task's fail-safe answer.
            draft.payload["fallbacks"] = fallbacks
        if agent_threads() > 1:
            # Others still wait on the model: embed this one's memories meanwhile.
            memories_embed_ahead(events=drafts)
        return name, drafts
    except Exception as exc:
        if threading.current_thread() is not threading.main_thread():
            # A pool thread keeps its connection only while healthy: checked after a
            # failure, not before every decision (a health check is a round trip).
            close_old_connections()
        return name, exc


def decide_all(cognition: Cognition, context: StepContext, names: list[str]) -> list[Decision]:
    """Each agent's decision, in the order of `names` whatever order they finish in."""
    threads = agent_threads()
    if threads == 1 or len(names) == 1:
        return [decide_one(cognition, context, name) for name in names]
    steps = pool("agent-step")
    return list(steps.map(lambda name: decide_one(cognition, context, name), names))


def decide_embedded(
    simulation: Simulation, cognition: Cognition, context: StepContext, names: list[str]
) -> Decided | None:
    """Decide `names` and embed the memories they made; None when the run failed instead
    (a resident's decision or the embedder failed: `simulation_fail`). A transient error
    (the database or cache away) propagates, and the work is sent again."""
    with (
        about(simulation=simulation.pk, step=context.step),
        span("step", attributes={"smallville.residents": len(names)}),
    ):
        return _decide_embedded(simulation, cognition, context, names)


def _decide_embedded(
    simulation: Simulation, cognition: Cognition, context: StepContext, names: list[str]
) -> Decided | None:
    made: Decided = []
    for name, drafts in decide_all(cognition, context, names):
        if isinstance(drafts, TRANSIENT):
            raise drafts
        if isinstance(drafts, BaseException):
            simulation_fail(simulation=simulation, step=context.step, agent=name, error=drafts)
            return None
        made.append((name, drafts))
    try:
        memories_embed(simulation=simulation, events=[d for _, ds in made for d in ds])
    except TRANSIENT:
        raise
    except Exception as exc:  # the embedding server failed, or the budget is spent
        simulation_fail(
            simulation=simulation, step=context.step, agent="embedding its memories", error=exc
        )
        return None
    return made


def simulation_fail(*, simulation: Simulation, step: int, agent: str, error: BaseException) -> None:
    """Stop the run at its last committed step; nothing of step `step` is applied. Unless
    the run has moved on meanwhile: then another worker decided the step (this one was cut
    off past its leases) and the failure is no longer the run's."""
    log.exception("agent step failed", exc_info=error)
    simulation.refresh_from_db()
    if simulation.status == SimulationStatus.BUDGET_EXHAUSTED:
        return  # the language-model port already stopped it, with its own reason
    simulation_set_status(
        simulation=simulation,
        status=SimulationStatus.FAILED,
        reason=f"step {step + 1}, {agent}: {type(error).__name__}: {error}",
        expected=[SimulationStatus.RUNNING],
        step_at_most=step,
    )
