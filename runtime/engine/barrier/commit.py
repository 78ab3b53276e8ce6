"""The tick commit: one transaction that applies a step's decisions through the commit
rules, appends the events and `simulation.stepped`, and hands on the next tick."""

from __future__ import annotations

import functools
import logging

from django.conf import settings
from django.core.cache import cache
from django.db import transaction

from runtime.commit_context import CommitContext, NotReady
from runtime.decisions import Staged
from runtime.dispatch import Tick, TickCommit, send_on_commit
from runtime.engine.observed import steps_committed
from runtime.models import Decision
from runtime.rules import AFTER_COMMIT, COMMIT_RULES
from world.eventlog import EventDraft, events_append
from world.events import simulation_stepped
from world.models import Agent, Simulation, SimulationStatus
from world.services import simulation_set_status

log = logging.getLogger(__name__)


def tick_commit(
    *,
    simulation_id: int,
    step: int,
    staged: Staged | None = None,
    redelivered: bool = False,
    retrying: bool = False,
) -> None:
    """Apply every decision of step `step` in one transaction and advance the clock.

    `staged` decisions are used when nothing was appended to the log since they were
    made (so no agent joined meanwhile); else the stored ones are read back. A commit
    that must wait (a reflection job) asks again shortly: `retrying` marks those asks,
    and only one chain of them runs per simulation and step."""
    with transaction.atomic(durable=True):
        simulation = Simulation.objects.select_for_update().get(pk=simulation_id)
        if simulation.step != step or simulation.status not in (
            SimulationStatus.RUNNING,
            SimulationStatus.PAUSED,
        ):
            if redelivered:
                hand_on_lost_tick(simulation_id, step)
            return
        if staged is not None and staged.seq == simulation.last_seq:
            decided = staged.events
        else:
            # A resident who left during the step (a user's DELETE) has its decision dropped.
            present = Agent.present.filter(simulation=simulation).values_list("name", flat=True)
            decisions = Decision.objects.filter(
                simulation=simulation, step=step, agent__in=list(present)
            ).order_by("agent")
            decided = list(decisions.values_list("events", flat=True))
            if len(decided) != len(present):
                return
        drafts = [
            EventDraft(kind=e["kind"], agent=e["agent"], payload=e["payload"])
            for agent_events in decided
            for e in agent_events
        ]
        context = CommitContext(simulation, step)
        try:
            for rule in COMMIT_RULES:
                drafts = rule(context, drafts)
        except NotReady:
            if retrying:
                commit_wait_renew(simulation_id=simulation.pk, step=step)
            if retrying or _wait_claimed(simulation.pk, step):
                send_on_commit(TickCommit(simulation.pk, step, later=True))
            return
        drafts.append(simulation_stepped(step=step + 1))
        events = events_append(simulation=simulation, drafts=drafts, step=step + 1)
        steps_committed(engine="barrier", simulation_id=simulation.pk, first=step, until=step + 1)
        Decision.objects.filter(simulation=simulation, step=step).delete()
        for after in AFTER_COMMIT:
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
        send_on_commit(Tick(simulation.pk, simulation.step))


def _wait_claimed(simulation_id: int, step: int) -> bool:
    """True for the first commit of this step to wait: it starts the one chain of retries
    (the claim lapses with the lease period, so a chain whose message was lost is
    replaced by the next commit the watchdog's resent tick makes)."""
    key = f"smallville:commit-wait:{simulation_id}:{step}"
    try:
        return bool(cache.add(key, 1, timeout=settings.SMALLVILLE_LEASE_SECONDS))
    except Exception:  # no cache: a second chain is only waste
        return True


def commit_wait_renew(*, simulation_id: int, step: int) -> None:
    """A retry of the chain keeps its claim."""
    key = f"smallville:commit-wait:{simulation_id}:{step}"
    try:
        cache.set(key, 1, timeout=settings.SMALLVILLE_LEASE_SECONDS)
    except Exception:
        log.warning("could not renew the commit wait of simulation %s", simulation_id)


def one_shard(simulation_id: int) -> bool:
    agents = Agent.present.filter(simulation_id=simulation_id).count()
    return agents <= settings.SMALLVILLE_SHARD_SIZE


def hand_on_lost_tick(simulation_id: int, step: int) -> None:
    """A redelivered task of step `step` finds the step committed. Its worker may have died
    between that commit and sending the next tick, which nothing else would send: send it
    again while the run still stands at step + 1 (a duplicate tick finds its work done)."""
    if Simulation.objects.filter(
        pk=simulation_id, status=SimulationStatus.RUNNING, step=step + 1
    ).exists():
        log.warning("simulation %s: tick %s sent again after a redelivery", simulation_id, step + 1)
        send_on_commit(Tick(simulation_id, step + 1))
