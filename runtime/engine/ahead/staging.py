"""The commits of the engine that runs residents ahead (runtime/engine/ahead) and its log
writer: each commit one transaction under the simulation's row lock.

A commit applies the decisions of groups of residents, each at its own step, through the
commit rules to the projections (`events_project`), and tags every event with its place
in the barrier's order: with its decider's events, or among the reflections the commit
rule adds after all decisions (delivered, then requested), each by name. Every step that
all residents have now passed goes to the log in that order with `simulation.stepped`,
in one append; the events of later steps wait in `StagedCommit` rows until then. Those
rows also record how far each resident stands ahead of the log (an empty row for a
resident whose steps decided nothing), so a run started again after a crash goes on
from where its residents stood.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction

from agents.events import AGENT_MOVED, REFLECTION_REQUESTED
from runtime.commit_context import CommitContext, CommittedAgent, NotReady, committed_agents
from runtime.dispatch import RecordingBroker, Reflect, broker_used
from runtime.engine.observed import steps_committed
from runtime.models import StagedCommit
from runtime.rules import AFTER_COMMIT, COMMIT_RULES
from world.eventlog import EventDraft, events_append_steps, events_project
from world.events import simulation_stepped
from world.models import Simulation, SimulationStatus
from world.services import simulation_set_status

ORDER_DECISION, ORDER_DELIVERY, ORDER_REQUEST = 0, 1, 2

Decided = list[tuple[str, list[EventDraft]]]  # (resident, its drafts), in name order


@dataclass
class Committed:
    status: str  # the simulation's, read under the lock
    log_step: int  # the log's step after the commit
    seq_before: int  # the log's last seq when the commit began, and after it
    seq: int
    tiles: dict[str, tuple[int, int]] = field(default_factory=dict)  # after each step
    jobs: list[int] = field(default_factory=list)  # the reflection jobs requested
    waiting: set[int] = field(default_factory=set)  # groups whose reflection is not done
    events: list[dict[str, Any]] = field(default_factory=list)  # every event applied


def groups_commit(
    *,
    simulation_id: int,
    groups: list[tuple[int, Decided]],
    steps: dict[str, int],
    advanced: dict[str, int],
) -> Committed | None:
    """In one transaction: apply each group's decisions of its step (`groups`: (step,
    decided) in (step, name) order) through the commit rules to the projections, write
    the log of every step that all residents have passed (`steps`: each resident's step
    before this commit) and stage the rest; record where the residents of `advanced`
    stand (name -> step reached by steps that decided nothing, not recorded yet). A group
    whose reflection due is not done is left out (`waiting`). None when the run no longer
    stands. One process runs a simulation's residents (`ahead_claimed`)."""
    recorder = RecordingBroker()  # the reflection jobs it requests run in this process
    names = [name for _, decided in groups for name, _ in decided]
    with broker_used(recorder), transaction.atomic(durable=True):
        simulation = Simulation.objects.select_for_update().get(pk=simulation_id)
        if simulation.status not in (SimulationStatus.RUNNING, SimulationStatus.PAUSED):
            return None
        done = Committed(
            status=simulation.status,
            log_step=simulation.step,
            seq_before=simulation.last_seq,
            seq=simulation.last_seq,
        )
        for step, decided in groups:
            if simulation.step > step:
                raise RuntimeError(f"step {step} of {decided[0][0]} is committed already")
        committed = committed_agents(simulation=simulation, names=names) if names else {}
        applied: list[tuple[int, list[str], list[dict[str, Any]]]] = []
        after = dict(steps)
        for index, (step, decided) in enumerate(groups):
            group = [name for name, _ in decided]
            agents = {name: committed[name] for name in group}
            due = any(
                a.reflection_due_step is not None and a.reflection_due_step <= step + 1
                for a in agents.values()
            )
            try:
                # A savepoint only where a rule may wait (a reflection due): its writes
                # go with it.
                with transaction.atomic() if due else nullcontext():
                    staged = _group_apply(simulation, step, decided, agents)
            except NotReady:
                done.waiting.add(index)
                continue
            applied.append((step, group, staged))
            done.events += staged
            for name in group:
                done.tiles[name] = (agents[name].tile_x, agents[name].tile_y)
                after[name] = step + 1
            for event in staged:
                if event["kind"] == AGENT_MOVED and event["agent"] in agents:
                    x, y = event["payload"]["tile"]
                    done.tiles[event["agent"]] = (x, y)
        lowest = min(after.values(), default=simulation.step)
        _stage(simulation, applied, advanced, after, lowest)
        if simulation.step < lowest:
            fresh: dict[int, list[dict[str, Any]]] = defaultdict(list)
            for step, _, staged in applied:
                if step < lowest:
                    fresh[step] += staged
            _log_write(simulation, lowest, fresh)
        done.log_step, done.seq, done.status = (
            simulation.step,
            simulation.last_seq,
            simulation.status,
        )
    done.jobs = [work.job_id for work in recorder.sent if isinstance(work, Reflect)]
    return done


def _stage(
    simulation: Simulation,
    applied: list[tuple[int, list[str], list[dict[str, Any]]]],
    advanced: dict[str, int],
    after: dict[str, int],
    lowest: int,
) -> None:
    """Stage what the log does not take yet: each group's events, and where a resident
    ahead of the log stands after steps that decided nothing (an empty row at its last
    step). A step every resident has passed goes to the log at once, unstaged."""
    rows = [
        StagedCommit(simulation=simulation, step=step, agents=group, events=staged)
        for step, group, staged in applied
        if step >= lowest
    ]
    marks: dict[int, list[str]] = defaultdict(list)
    for name, step in sorted(advanced.items()):
        if after.get(name, step) == step and step - 1 >= lowest:
            marks[step - 1].append(name)
    rows += [
        StagedCommit(simulation=simulation, step=step, agents=names, events=[])
        for step, names in sorted(marks.items())
    ]
    if rows:
        StagedCommit.objects.bulk_create(rows)


def _group_apply(
    simulation: Simulation,
    step: int,
    decided: Decided,
    agents: dict[str, CommittedAgent],
) -> list[dict[str, Any]]:
    """One group's commit rules and projections; its events with their place in the
    barrier's order (`key`), for the log."""
    decider: dict[int, str] = {}
    drafts: list[EventDraft] = []
    for name, made in decided:
        for draft in made:
            decider[id(draft)] = name
            drafts.append(draft)
    context = CommitContext(simulation, step, agents)
    for rule in COMMIT_RULES:
        drafts = rule(context, drafts)
    staged = [
        {
            "kind": d.kind,
            "agent": d.agent,
            "payload": d.payload,
            "key": list(_order_key(d, decider)),
        }
        for d in drafts
    ]
    if drafts:
        events = events_project(simulation=simulation, drafts=drafts, step=step + 1)
        for after in AFTER_COMMIT:
            transaction.on_commit(functools.partial(after, simulation, step + 1, events))
    return staged


def _order_key(draft: EventDraft, decider: dict[int, str]) -> tuple[int, str]:
    """Where the barrier's commit puts the draft: with its decider's events, or among
    the reflections the commit rule adds after all decisions (delivered, then requested)."""
    if id(draft) in decider:
        return ORDER_DECISION, decider[id(draft)]
    if draft.kind == REFLECTION_REQUESTED:
        return ORDER_REQUEST, draft.agent
    return ORDER_DELIVERY, draft.agent


def _log_write(simulation: Simulation, until: int, fresh: dict[int, list[dict[str, Any]]]) -> None:
    """Append steps from the log's step to `until` (every resident has passed them): each
    one's events (staged, and `fresh` ones of this transaction) in the barrier's order,
    and its `simulation.stepped`, in one append; ends the run at its target. The
    simulation's row is locked."""
    commits: dict[int, list[StagedCommit]] = defaultdict(list)
    for commit in StagedCommit.objects.filter(
        simulation=simulation, step__gte=simulation.step, step__lt=until
    ):
        commits[commit.step].append(commit)
    batches: list[tuple[int, list[EventDraft]]] = []
    for step in range(simulation.step, until):
        staged = [e for c in commits.get(step, []) for e in c.events] + fresh.get(step, [])
        staged.sort(key=lambda e: tuple(e["key"]))  # stable: each decider's own order
        drafts = [
            EventDraft(kind=e["kind"], agent=e["agent"], payload=e["payload"]) for e in staged
        ]
        batches.append((step + 1, [*drafts, simulation_stepped(step=step + 1)]))
    first = simulation.step
    events_append_steps(simulation=simulation, batches=batches, projected=False)
    steps_committed(engine="ahead", simulation_id=simulation.pk, first=first, until=until)
    # The clock's projection needs only the last `simulation.stepped`.
    events_project(simulation=simulation, drafts=[simulation_stepped(step=until)], step=until)
    stale = [c.pk for found in commits.values() for c in found]
    if stale:
        StagedCommit.objects.filter(pk__in=stale).delete()
    if (
        simulation.status == SimulationStatus.RUNNING
        and simulation.target_step is not None
        and simulation.step >= simulation.target_step
    ):
        simulation_set_status(
            simulation=simulation,
            status=SimulationStatus.IDLE,
            reason=f"reached step {simulation.step}",
            expected=[SimulationStatus.RUNNING],
        )
