"""The event log: append events and update projections in one transaction; rebuild; fork.

Every state change of a simulation is an event. Apps register a `Projection` for the
event kinds they own (in `AppConfig.ready`), so `world` never imports the apps above it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from django.db import connection, transaction
from django.utils import timezone

from .models import Event, Simulation

_CHUNK = 2000


@dataclass(frozen=True)
class EventDraft:
    """An event not yet in the log."""

    kind: str
    payload: dict[str, Any] = field(default_factory=dict)
    agent: str = ""


class Projection(Protocol):
    """State derived from the log; must give the same result live and on rebuild."""

    name: str
    order: int  # lower applies first and resets last
    kinds: frozenset[str]
    # Applied when the events are appended, never ahead of the log (`events_project`):
    # for state that depends on the order of events across residents (numbers per
    # simulation).
    in_log_order: bool

    def reset(self, simulation: Simulation) -> None: ...

    def apply(self, simulation: Simulation, events: Sequence[Event]) -> None: ...

    def snapshot(self, simulation: Simulation) -> Any: ...


_projections: dict[str, Projection] = {}


def projection_register(projection: Projection) -> None:
    _projections[projection.name] = projection


def projections() -> list[Projection]:
    return sorted(_projections.values(), key=lambda p: (p.order, p.name))


def _apply(
    simulation: Simulation, events: Sequence[Event], *, in_log_order: bool | None = None
) -> None:
    """Apply the projections (only those whose `in_log_order` is the one given)."""
    for projection in projections():
        if in_log_order is not None and projection.in_log_order != in_log_order:
            continue
        mine = [event for event in events if event.kind in projection.kinds]
        if mine:
            projection.apply(simulation, mine)


# One statement whatever the number of events, the rows sent as one JSON parameter (a tick
# of 500 agents appends ~1,000 events; Django's bulk_create spends more building the
# statement than Postgres spends running it).
_INSERT_SQL = """
INSERT INTO world_event (simulation_id, seq, step, sim_time, kind, agent, payload, created_at)
SELECT %s, r.seq, r.step, r.sim_time, r.kind, r.agent, r.payload, now()
FROM jsonb_to_recordset(%s::jsonb)
    AS r(seq bigint, step integer, sim_time timestamptz, kind text, agent text, payload jsonb)
RETURNING seq, id
"""
_RESERVE_SQL = """
UPDATE world_simulation SET last_seq = last_seq + %s WHERE id = %s RETURNING last_seq
"""


def events_append(
    *,
    simulation: Simulation,
    drafts: Iterable[EventDraft],
    step: int | None = None,
    projected: bool = True,
) -> list[Event]:
    """Append events at `step` (default: the simulation's current step) and project them
    (with `projected` False, only the projections kept in log order: `events_project`
    applied the others already).

    Seq numbers are reserved with one conditional UPDATE; the row lock it takes is held
    until commit, so concurrent appends serialise and the log stays gap-free.
    """
    at_step = simulation.step if step is None else step
    return events_append_steps(
        simulation=simulation, batches=[(at_step, list(drafts))], projected=projected
    )


def events_append_steps(
    *,
    simulation: Simulation,
    batches: Sequence[tuple[int, Sequence[EventDraft]]],
    projected: bool = True,
) -> list[Event]:
    """`events_append` of several steps' events at once, each batch at its step, in step
    order: one reservation of seq numbers and one insert for them all (the engine that
    runs residents ahead writes the log of every step it catches up on so)."""
    batches = [(step, list(drafts)) for step, drafts in batches if drafts]
    total = sum(len(drafts) for _, drafts in batches)
    if not total:
        return []
    # No savepoint inside a caller's transaction: a failure here fails the caller's too.
    with transaction.atomic(savepoint=False), connection.cursor() as cursor:
        cursor.execute(_RESERVE_SQL, [total, simulation.pk])
        reserved = cursor.fetchone()
        if reserved is None:
            raise Simulation.DoesNotExist(f"simulation {simulation.pk} is gone")
        seq = int(reserved[0]) - total
        now = timezone.now()
        events: list[Event] = []
        for step, drafts in batches:
            sim_time = simulation.sim_time_at(step)
            for d in drafts:
                seq += 1
                events.append(_event(simulation, d, step, sim_time, seq=seq, now=now))
        rows = [
            {
                "seq": e.seq,
                "step": e.step,
                "sim_time": e.sim_time.isoformat(),
                "kind": e.kind,
                "agent": e.agent,
                "payload": e.payload,
            }
            for e in events
        ]
        cursor.execute(_INSERT_SQL, [simulation.pk, json.dumps(rows)])
        ids = dict(cursor.fetchall())
        for event in events:
            event.id = ids[event.seq]
        simulation.last_seq = seq
        _apply(simulation, events, in_log_order=None if projected else True)
    return events


def events_project(
    *, simulation: Simulation, drafts: Sequence[EventDraft], step: int
) -> list[Event]:
    """Apply events of `step` to the projections before they are in the log (they are
    appended later with `projected=False`); the returned events have no seq yet.

    For events that commute with every event between them and the log's end (the engine
    that runs residents ahead, runtime.engine.ahead.run, stages only those): a rebuild from
    the log then gives the same projections. Projections kept `in_log_order` are left to
    `events_append`."""
    sim_time, now = simulation.sim_time_at(step), timezone.now()
    events = [_event(simulation, d, step, sim_time, seq=0, now=now) for d in drafts]
    with transaction.atomic(savepoint=False):
        _apply(simulation, events, in_log_order=False)
    return events


def _event(
    simulation: Simulation,
    draft: EventDraft,
    step: int,
    sim_time: datetime,
    *,
    seq: int,
    now: datetime,
) -> Event:
    return Event(
        simulation=simulation,
        seq=seq,
        step=step,
        sim_time=sim_time,
        kind=draft.kind,
        agent=draft.agent,
        payload=draft.payload,
        created_at=now,
    )


def simulation_rebuild(*, simulation: Simulation) -> None:
    """Recreate every projection of `simulation` from its log alone."""
    with transaction.atomic():
        Simulation.objects.select_for_update().get(pk=simulation.pk)
        for projection in reversed(projections()):
            projection.reset(simulation)
        last = 0
        while True:
            chunk = list(
                Event.objects.filter(simulation=simulation, seq__gt=last).order_by("seq")[:_CHUNK]
            )
            if not chunk:
                break
            _apply(simulation, chunk)
            last = chunk[-1].seq


def simulation_snapshot(*, simulation: Simulation) -> dict[str, Any]:
    """Every projection's state, for comparing a live simulation with its rebuild."""
    return {p.name: p.snapshot(simulation) for p in projections()}


def simulation_fork(
    *,
    simulation: Simulation,
    step: int,
    name: str = "",
    owner: Any = None,
    seed: int | None = None,
    config: dict[str, Any] | None = None,
) -> Simulation:
    """A new simulation whose log is `simulation`'s events up to and including `step`;
    with `seed` or `config` (checked by the caller), then a `simulation.branched` event
    at `step`: the fork runs with them after it (its rebuild too), else the parent's."""
    if step < 0 or step > simulation.step:
        raise ValueError(f"fork step must be between 0 and {simulation.step}, got {step}")
    with transaction.atomic():
        child = Simulation.objects.create(
            owner=owner or simulation.owner,
            name=name or f"{simulation.name} (fork at step {step})",
            town=simulation.town,
            base=simulation.base,
            start_time=simulation.start_time,
            sec_per_step=simulation.sec_per_step,
            seed=simulation.seed,
            config=simulation.config,
            embedding_model=simulation.embedding_model,
            parent=simulation,
            forked_at_step=step,
        )
        last_seq = 0
        source = Event.objects.filter(simulation=simulation, step__lte=step).order_by("seq")
        batch: list[Event] = []
        for event in source.iterator(chunk_size=_CHUNK):
            batch.append(
                Event(
                    simulation=child,
                    seq=event.seq,
                    step=event.step,
                    sim_time=event.sim_time,
                    kind=event.kind,
                    agent=event.agent,
                    payload=event.payload,
                )
            )
            last_seq = event.seq
            if len(batch) >= _CHUNK:
                Event.objects.bulk_create(batch)
                batch = []
        Event.objects.bulk_create(batch)
        Simulation.objects.filter(pk=child.pk).update(last_seq=last_seq)
        child.last_seq = last_seq
        simulation_rebuild(simulation=child)
        if seed is not None or config is not None:
            from .events import simulation_branched  # world.events imports this module

            branched = simulation_branched(
                seed=child.seed if seed is None else seed,
                config=child.config if config is None else config,
            )
            events_append(simulation=child, drafts=[branched], step=step)
        child.refresh_from_db()
    return child
