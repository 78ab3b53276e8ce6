"""The engine that lets residents run ahead of each other (docs/architecture.md, "Residents
that do not wait for each other"); `SMALLVILLE_ENGINE = "ahead"`.

The barrier engine decides every resident at step t, then commits the town. Here each
resident keeps its own step, and a *group* (residents at one step near enough to meet)
is decided and committed as soon as nothing it could perceive or touch can still change
under it. The rule, with distances in tiles (Chebyshev, what vision uses):

    a group at step s may go when every resident outside it at step u <= s stands
    further than  reach + (s - u) + 2  tiles from each of its members,

where `reach` is the largest vision radius plus the largest object (a resident changes
an object only where it stands, and is seen from any of the object's tiles). Walking is
one tile a step, so over the lead neither can come within sight of the other or of what
the other touches; residents within reach at one step are one group and commit together
(their conversations and claims on objects are resolved by the same commit rules).

A group's commit applies its events to the projections at once (`events_project`, one
transaction) and stages them (`StagedCommit`); when every resident has committed step
t, the log writer appends step t's events in the barrier's order (the commit rules keep
each decider's events together, so the order is: decisions by decider, then reflections
delivered, then reflections requested, each by name) and `simulation.stepped`. The log
therefore equals the barrier engine's for the same seed; projections commute because
groups touch disjoint residents and places.

One process runs a simulation's residents (its worker's tick task holds the run); the
model calls of many groups are in flight at once, up to `SMALLVILLE_CALLS_IN_FLIGHT`.
A killed worker leaves staged commits that match its projections: the watchdog's resent
tick starts the run again from them.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import close_old_connections, connection, transaction

from memories.services import memories_embed
from world.eventlog import EventDraft, events_append, events_project
from world.events import simulation_stepped
from world.models import Agent, Simulation, SimulationStatus, Town
from world.selectors import town_cached
from world.services import simulation_set_status

from ..cognition import StepContext, _objects_by_arena, cognition_for
from ..commit_context import CommitContext, NotReady, committed_agents
from ..dispatch import RecordingBroker, Reflect, broker_used
from ..events import REFLECTION_REQUESTED
from ..leases import lease_held
from ..models import StagedCommit
from ..reflection.models import JobStatus, ReflectionJob
from ..reflection.services import reflection_job_run_inline
from .failures import TRANSIENT
from .rules import AFTER_COMMIT, COMMIT_RULES
from .steps import COLD_FIELDS, _decide_one, simulation_fail

log = logging.getLogger(__name__)

RETRY_SECONDS = 0.05  # a group whose commit waits (a reflection) or whose step hit a blip


def ahead_engine() -> bool:
    return settings.SMALLVILLE_ENGINE == "ahead"


def staged_steps(*, simulation_id: int) -> bool:
    """Whether residents of the simulation stand ahead of its log (a run of this engine
    stopped before they all reached one step)."""
    return StagedCommit.objects.filter(simulation_id=simulation_id).exists()


# --- the rule -------------------------------------------------------------------------


_reach: dict[int, int] = {}


def object_extent(town: Town) -> int:
    """The most tiles any object spans (Chebyshev), so a change made at one of its tiles
    is seen from all of them."""
    if town.pk not in _reach:
        tiles: dict[tuple[str, str], list[tuple[int, int]]] = defaultdict(list)
        for arena, found in _objects_by_arena(town).items():
            for x, y, name in found:
                tiles[(arena, name)].append((x, y))
        _reach[town.pk] = max(
            (
                max(
                    max(x for x, _ in t) - min(x for x, _ in t),
                    max(y for _, y in t) - min(y for _, y in t),
                )
                for t in tiles.values()
            ),
            default=0,
        )
    return _reach[town.pk]


@dataclass
class Resident:
    name: str
    step: int  # its state is that of this step: it decides this step next
    tile: tuple[int, int]
    busy: bool = False  # its group is being decided or committed


def apart(a: Resident, b: Resident, *, reach: int, lead: int) -> bool:
    """Neither can perceive the other, or what the other touches, for `lead` more steps."""
    distance = max(abs(a.tile[0] - b.tile[0]), abs(a.tile[1] - b.tile[1]))
    return distance > reach + lead + 2


def groups_at(residents: list[Resident], *, reach: int) -> list[list[Resident]]:
    """The residents of one step joined when near enough to meet this step (the
    connected parts of `not apart(a, b, lead=0)`), each group in name order."""
    parent = {r.name: r.name for r in residents}

    def root(name: str) -> str:
        while parent[name] != name:
            parent[name] = parent[parent[name]]
            name = parent[name]
        return name

    for i, a in enumerate(residents):
        for b in residents[i + 1 :]:
            if not apart(a, b, reach=reach, lead=0):
                parent[root(a.name)] = root(b.name)
    joined: dict[str, list[Resident]] = defaultdict(list)
    for r in residents:
        joined[root(r.name)].append(r)
    return [sorted(g, key=lambda r: r.name) for g in joined.values()]


def may_go(group: list[Resident], others: list[Resident], *, reach: int) -> bool:
    """The scheduling rule: nobody behind the group (or level with it) is near enough
    to change what it perceives or touches before the group's step is done."""
    step = group[0].step
    return all(
        apart(member, other, reach=reach, lead=step - other.step)
        for other in others
        if other.step <= step
        for member in group
    )


# --- the run --------------------------------------------------------------------------


@dataclass
class GroupWork:
    step: int
    residents: list[Resident]
    decisions: dict[str, Future[tuple[str, list[EventDraft] | BaseException]]] = field(
        default_factory=dict
    )
    not_before: float = 0.0  # a retry waits until then


class AheadRun:
    """One run of a simulation to `simulation.target_step` (or, paused, to the furthest
    step any resident reached)."""

    def __init__(self, simulation: Simulation, *, furthest_first: bool = False) -> None:
        self.simulation = simulation
        self.town = town_cached(pk=simulation.town_id)
        self.cognition = cognition_for(simulation)
        self.reach = self._vision() + object_extent(self.town)
        self.furthest_first = furthest_first  # tests: the order that leads the most
        self.pool = ThreadPoolExecutor(
            max_workers=max(1, settings.SMALLVILLE_CALLS_IN_FLIGHT),
            thread_name_prefix="ahead",
        )
        self.residents = self._load()
        self.groups: list[GroupWork] = []
        self.reflections: dict[int, Future[None]] = {}
        # Each group as it started: its step, residents, and every resident's step then.
        self.trace: list[tuple[int, tuple[str, ...], dict[str, int]]] = []
        self.pause_limit: int | None = None
        self.most_ahead = 0  # the largest lead of one resident over another, in steps

    def _vision(self) -> int:
        radii = Agent.objects.filter(simulation=self.simulation).values_list(
            "vision_radius", flat=True
        )
        return max(radii, default=0)

    def _load(self) -> dict[str, Resident]:
        """Each resident's step: one past its last staged commit, else the log's."""
        stepped: dict[str, int] = {}
        for step, names in StagedCommit.objects.filter(simulation=self.simulation).values_list(
            "step", "agents"
        ):
            for name in names:
                stepped[name] = max(stepped.get(name, 0), step + 1)
        rows = Agent.objects.filter(simulation=self.simulation).values_list(
            "name", "tile_x", "tile_y"
        )
        return {
            name: Resident(name, stepped.get(name, self.simulation.step), (x, y))
            for name, x, y in rows
        }

    # The loop ------------------------------------------------------------------------

    def run(self) -> None:
        try:
            self._loop()
        finally:
            for work in self.groups:
                for future in work.decisions.values():
                    future.cancel()
            _pool_close(self.pool)

    def _loop(self) -> None:
        while True:
            self.simulation.refresh_from_db()
            status = self.simulation.status
            if status not in (SimulationStatus.RUNNING, SimulationStatus.PAUSED):
                return  # failed or out of budget: the staged steps wait for a resume
            limit = self._limit(status)
            self._write_log()
            if self.simulation.status not in (SimulationStatus.RUNNING, SimulationStatus.PAUSED):
                return
            if all(r.step >= limit for r in self.residents.values()) and not self.groups:
                return
            self._start_groups(limit)
            if not self.groups:
                raise RuntimeError("no group of residents can go")  # the rule forbids it
            self._finish_some()

    def _limit(self, status: str) -> int:
        if status == SimulationStatus.PAUSED:
            # Stop where the furthest resident will stand, the others catching up to it.
            if self.pause_limit is None:
                self.pause_limit = max(r.step + r.busy for r in self.residents.values())
            return self.pause_limit
        self.pause_limit = None
        assert self.simulation.target_step is not None
        return self.simulation.target_step

    def _start_groups(self, limit: int) -> None:
        idle = [r for r in self.residents.values() if not r.busy and r.step < limit]
        by_step: dict[int, list[Resident]] = defaultdict(list)
        for r in idle:
            by_step[r.step].append(r)
        busy = [r for r in self.residents.values() if r.busy]
        steps = sorted(by_step, reverse=self.furthest_first)
        for step in steps:
            level = by_step[step]
            for group in sorted(groups_at(level, reach=self.reach), key=lambda g: g[0].name):
                members = {r.name for r in group}
                others = [r for r in self.residents.values() if r.name not in members]
                if not may_go(group, others, reach=self.reach):
                    continue
                # Those already running stay where they are until their commit.
                if any(not apart(m, b, reach=self.reach, lead=0) for m in group for b in busy):
                    continue
                for r in group:
                    r.busy = True
                busy += group
                self._decide(GroupWork(step, group))

    def _decide(self, work: GroupWork) -> None:
        context = self._context(work)
        for r in work.residents:
            work.decisions[r.name] = self.pool.submit(_decide_one, self.cognition, context, r.name)
        steps = {r.name: r.step for r in self.residents.values()}
        self.trace.append((work.step, tuple(r.name for r in work.residents), steps))
        self.groups.append(work)

    def _context(self, work: GroupWork) -> StepContext:
        """The group's own residents as committed (nobody else is within sight of them)."""
        agents = Agent.objects.filter(
            simulation=self.simulation, name__in=[r.name for r in work.residents]
        ).defer(*COLD_FIELDS)
        return StepContext(
            simulation=self.simulation,
            town=self.town,
            step=work.step,
            agents={a.name: a for a in agents},
        )

    def _finish_some(self) -> None:
        """Commit every group whose decisions are in; wait for one when none is."""
        now = time.monotonic()
        ready = [
            w
            for w in self.groups
            if w.not_before <= now and all(f.done() for f in w.decisions.values())
        ]
        if not ready:
            pending: list[Future[Any]] = [
                f for w in self.groups for f in w.decisions.values() if not f.done()
            ]
            pending += [f for f in self.reflections.values() if not f.done()]
            if pending:
                wait(pending, timeout=RETRY_SECONDS, return_when=FIRST_COMPLETED)
            else:
                time.sleep(RETRY_SECONDS)
            return
        for work in sorted(ready, key=lambda w: (w.step, w.residents[0].name)):
            self._commit(work)

    def _commit(self, work: GroupWork) -> None:
        decided: list[tuple[str, list[EventDraft]]] = []
        for r in work.residents:
            name, drafts = work.decisions[r.name].result()
            if isinstance(drafts, TRANSIENT):
                log.warning(
                    "simulation %s: %s of step %s again: %r",
                    self.simulation.pk,
                    name,
                    work.step,
                    drafts,
                )
                self._redo(work)
                return
            if isinstance(drafts, BaseException):
                simulation_fail(
                    simulation=self.simulation, step=work.step, agent=name, error=drafts
                )
                self._release(work)
                return
            decided.append((name, drafts))
        made = [d for _, drafts in decided for d in drafts]
        try:
            memories_embed(simulation=self.simulation, events=made)
        except TRANSIENT:
            self._redo(work)
            return
        except Exception as exc:
            simulation_fail(
                simulation=self.simulation,
                step=work.step,
                agent="embedding its memories",
                error=exc,
            )
            self._release(work)
            return
        try:
            committed = group_commit(
                simulation_id=self.simulation.pk, step=work.step, decided=decided
            )
        except NotReady:
            self._reflect(work)
            work.not_before = time.monotonic() + RETRY_SECONDS
            return
        except TRANSIENT:
            work.not_before = time.monotonic() + RETRY_SECONDS
            return
        self.groups.remove(work)
        if committed is None:  # the run stopped meanwhile (failed, out of budget)
            self._release(work)
            return
        tiles, jobs = committed
        for r in work.residents:
            r.step = work.step + 1
            r.tile = tiles[r.name]
            r.busy = False
        steps = [r.step for r in self.residents.values()]
        self.most_ahead = max(self.most_ahead, max(steps) - min(steps))
        for job_id in jobs:
            self._run_job(job_id)

    def _redo(self, work: GroupWork) -> None:
        self.groups.remove(work)
        for r in work.residents:
            r.busy = False

    def _release(self, work: GroupWork) -> None:
        if work in self.groups:
            self.groups.remove(work)
        for r in work.residents:
            r.busy = False

    def _reflect(self, work: GroupWork) -> None:
        """A commit waits for a reflection due now: run its job here if nobody does."""
        jobs = ReflectionJob.objects.filter(
            simulation=self.simulation,
            agent__in=[r.name for r in work.residents],
            due_step__lte=work.step + 1,
            status__in=[JobStatus.PENDING, JobStatus.RUNNING],
        ).values_list("pk", flat=True)
        for job_id in jobs:
            self._run_job(job_id)

    def _run_job(self, job_id: int) -> None:
        if job_id not in self.reflections or self.reflections[job_id].done():
            self.reflections[job_id] = self.pool.submit(_threaded_job, job_id)

    # The log writer ------------------------------------------------------------------

    def _write_log(self) -> None:
        """Append every step all residents have committed, in step order."""
        lowest = min((r.step for r in self.residents.values()), default=self.simulation.step)
        while self.simulation.step < lowest:
            if not log_write_step(simulation_id=self.simulation.pk, step=self.simulation.step):
                return
            self.simulation.refresh_from_db()


def _pool_close(pool: ThreadPoolExecutor) -> None:
    """Close each pool thread's database connection, then the pool."""
    threads = len(getattr(pool, "_threads", ()))
    if threads:
        gate = threading.Barrier(threads)

        def close() -> None:
            gate.wait(timeout=30)  # one task for each thread
            connection.close()

        for future in [pool.submit(close) for _ in range(threads)]:
            with suppress(threading.BrokenBarrierError):
                future.result()
    pool.shutdown(wait=True)


def _threaded_job(job_id: int) -> None:
    try:
        reflection_job_run_inline(job_id)
    except Exception:
        log.exception("reflection job %s failed here; its commit asks again", job_id)
    finally:
        close_old_connections()


# --- commits and the log writer (each one transaction) --------------------------------

ORDER_DECISION, ORDER_DELIVERY, ORDER_REQUEST = 0, 1, 2


def group_commit(
    *, simulation_id: int, step: int, decided: list[tuple[str, list[EventDraft]]]
) -> tuple[dict[str, tuple[int, int]], list[int]] | None:
    """Apply a group's decisions of `step` through the commit rules to the projections,
    and stage them for the log. Returns the residents' tiles after it and the reflection
    jobs it requested; None when the run no longer stands. NotReady: a reflection due
    is not done (nothing was written)."""
    names = [name for name, _ in decided]
    recorder = RecordingBroker()  # the reflection jobs it requests run in this process
    with broker_used(recorder), transaction.atomic(durable=True):
        simulation = Simulation.objects.select_for_update().get(pk=simulation_id)
        if simulation.status not in (SimulationStatus.RUNNING, SimulationStatus.PAUSED):
            return None
        if (
            StagedCommit.objects.filter(
                simulation=simulation, step=step, agents__contains=names[:1]
            ).exists()
            or simulation.step > step
        ):
            raise RuntimeError(f"step {step} of {names[0]} is committed already")
        decider: dict[int, str] = {}
        drafts: list[EventDraft] = []
        for name, made in decided:
            for draft in made:
                decider[id(draft)] = name
                drafts.append(draft)
        context = CommitContext(
            simulation, step, committed_agents(simulation=simulation, names=names)
        )
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
        events = events_project(simulation=simulation, drafts=drafts, step=step + 1)
        StagedCommit.objects.create(simulation=simulation, step=step, agents=names, events=staged)
        tiles = {
            name: (x, y)
            for name, x, y in Agent.objects.filter(
                simulation=simulation, name__in=names
            ).values_list("name", "tile_x", "tile_y")
        }
        for after in AFTER_COMMIT:
            transaction.on_commit(functools.partial(after, simulation, step + 1, events))
    jobs = [work.job_id for work in recorder.sent if isinstance(work, Reflect)]
    return tiles, jobs


def _order_key(draft: EventDraft, decider: dict[int, str]) -> tuple[int, str]:
    """Where the barrier's commit puts the draft: with its decider's events, or among
    the reflections the commit rule adds after all decisions (delivered, then requested)."""
    if id(draft) in decider:
        return ORDER_DECISION, decider[id(draft)]
    if draft.kind == REFLECTION_REQUESTED:
        return ORDER_REQUEST, draft.agent
    return ORDER_DELIVERY, draft.agent


def log_write_step(*, simulation_id: int, step: int) -> bool:
    """Append step `step`'s staged events (all its groups have committed) in the barrier's
    order, and `simulation.stepped`; ends the run at its target. False when the
    simulation is not at `step` any more."""
    with transaction.atomic(durable=True):
        simulation = Simulation.objects.select_for_update().get(pk=simulation_id)
        if simulation.step != step:
            return False
        commits = list(StagedCommit.objects.filter(simulation=simulation, step=step))
        staged = [e for c in commits for e in c.events]
        staged.sort(key=lambda e: tuple(e["key"]))  # stable: each decider's own order
        drafts = [
            EventDraft(kind=e["kind"], agent=e["agent"], payload=e["payload"]) for e in staged
        ]
        events_append(simulation=simulation, drafts=drafts, step=step + 1, projected=False)
        events_append(
            simulation=simulation, drafts=[simulation_stepped(step=step + 1)], step=step + 1
        )
        StagedCommit.objects.filter(pk__in=[c.pk for c in commits]).delete()
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
    return True


# --- entry ----------------------------------------------------------------------------


def ahead_lease(simulation_id: int) -> str:
    return f"smallville:lease:ahead:{simulation_id}"


@contextmanager
def ahead_claimed(simulation_id: int) -> Iterator[bool]:
    """One process runs a simulation's residents: True for the one that claimed it (a
    redelivered or resent tick finds the claim live and leaves)."""
    key = ahead_lease(simulation_id)
    try:
        claimed = bool(cache.add(key, 1, timeout=settings.SMALLVILLE_LEASE_SECONDS))
    except Exception:
        claimed = True  # no cache: the commits' checks keep a second run harmless
    if not claimed:
        yield False
        return
    try:
        with lease_held(key):
            yield True
    finally:
        try:
            cache.delete(key)
        except Exception:
            log.warning("could not release %s", key)


def ahead_run(*, simulation_id: int) -> AheadRun | None:
    """Run the simulation's residents ahead of each other to its target, in this process."""
    with ahead_claimed(simulation_id) as claimed:
        if not claimed:
            return None
        simulation = Simulation.objects.get(pk=simulation_id)
        if simulation.status != SimulationStatus.RUNNING:
            return None
        run = AheadRun(simulation, furthest_first=settings.SMALLVILLE_AHEAD_ORDER == "ahead")
        run.run()
        return run
