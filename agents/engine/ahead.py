"""The engine that lets residents run ahead of each other (docs/architecture.md, "Residents
that do not wait for each other"); `SMALLVILLE_ENGINE = "ahead"`.

The barrier engine decides every resident at step t, then commits the town. Here each
resident keeps its own step, and a *group* (residents at one step near enough to meet)
is decided and committed as soon as nothing it could perceive or touch can still change
under it (the rule: agents/engine/schedule.py).

The groups whose decisions are in commit together, in one transaction: each group's
events go through the commit rules and onto the projections at once (`events_project`);
a step that every resident has now committed is appended to the log in the barrier's
order (the commit rules keep each decider's events together, so the order is: decisions
by decider, then reflections delivered, then reflections requested, each by name) with
`simulation.stepped`, and the events of later steps are staged (`StagedCommit`) until
then. The log therefore equals the barrier engine's for the same seed; projections
commute because groups touch disjoint residents and places.

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
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import contextmanager, nullcontext, suppress
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import close_old_connections, connection, transaction

from memories.selectors import memories_unrated
from memories.services import memories_embed
from world.eventlog import EventDraft, events_append, events_project
from world.events import simulation_stepped
from world.models import Agent, Simulation, SimulationStatus
from world.selectors import town_cached
from world.services import simulation_set_status

from ..cognition import StepContext, cognition_for
from ..cognition.selectors import commitments_ahead_by_agent, object_setters_get
from ..commit_context import CommitContext, CommittedAgent, NotReady, committed_agents
from ..dispatch import RecordingBroker, Reflect, broker_used
from ..events import AGENT_MOVED, REFLECTION_REQUESTED
from ..leases import lease_held
from ..models import StagedCommit
from ..reflection.models import JobStatus, ReflectionJob
from ..reflection.services import reflection_job_run_inline
from .failures import TRANSIENT
from .rules import AFTER_COMMIT, COMMIT_RULES
from .schedule import Resident, groups_ready, reach_of
from .steps import _decide_one, agents_read, simulation_fail

log = logging.getLogger(__name__)

RETRY_SECONDS = 0.05  # a group whose commit waits (a reflection) or whose step hit a blip


def ahead_engine() -> bool:
    return settings.SMALLVILLE_ENGINE == "ahead"


def staged_steps(*, simulation_id: int) -> bool:
    """Whether residents of the simulation stand ahead of its log (a run of this engine
    stopped before they all reached one step)."""
    return StagedCommit.objects.filter(simulation_id=simulation_id).exists()


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
        self.reach = reach_of(self.town, vision=self._vision())
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
        self.simulation_failed = False  # a decision failed the run (`_decided`)

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
        started = groups_ready(
            list(self.residents.values()),
            reach=self.reach,
            limit=limit,
            furthest_first=self.furthest_first,
        )
        if started:
            self._decide([GroupWork(group[0].step, group) for group in started])

    def _decide(self, works: list[GroupWork]) -> None:
        """Start the groups' decisions, each from its own residents as committed (nobody
        else is within sight of them), read in one go."""
        names = [r.name for work in works for r in work.residents]
        agents = {a.name: a for a in agents_read(simulation=self.simulation, names=names)}
        steps = {r.name: r.step for r in self.residents.values()}
        # What every group reads of the town and of its residents' commitments, read once
        # (what one group can see, no other changes before its step: the rule).
        setters = object_setters_get(simulation=self.simulation)
        commitments = commitments_ahead_by_agent(
            nows={
                agents[r.name].pk: self.simulation.sim_time_at(work.step)
                for work in works
                for r in work.residents
            }
        )
        unrated = memories_unrated(agent_ids=[a.pk for a in agents.values()])
        for work in works:
            context = StepContext(
                simulation=self.simulation,
                town=self.town,
                step=work.step,
                agents={r.name: agents[r.name] for r in work.residents},
            ).preload(object_setters=setters, commitments_ahead=commitments, unrated=unrated)
            for r in work.residents:
                work.decisions[r.name] = self.pool.submit(
                    _decide_one, self.cognition, context, r.name
                )
            self.trace.append((work.step, tuple(r.name for r in work.residents), steps))
            self.groups.append(work)

    def _finish_some(self) -> None:
        """Commit every group whose decisions are in, together; wait for one when none is."""
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
        self._commit(sorted(ready, key=lambda w: (w.step, w.residents[0].name)))

    def _commit(self, works: list[GroupWork]) -> None:
        """Commit the groups in one transaction, and write the log of every step that all
        residents have committed then."""
        decided: list[tuple[GroupWork, list[tuple[str, list[EventDraft]]]]] = []
        for work in works:
            made = self._decided(work)
            if made is None:
                if self.simulation_failed:
                    for other in works:
                        self._release(other)
                    return
                continue  # decided again
            decided.append((work, made))
        if not decided:
            return
        drafts = [d for _, made in decided for _, group_drafts in made for d in group_drafts]
        try:
            memories_embed(simulation=self.simulation, events=drafts)
        except TRANSIENT:
            for work, _ in decided:
                self._release(work)
            return
        except Exception as exc:
            simulation_fail(
                simulation=self.simulation,
                step=decided[0][0].step,
                agent="embedding its memories",
                error=exc,
            )
            for work in works:
                self._release(work)
            return
        steps = {r.name: r.step for r in self.residents.values()}
        try:
            outcome = groups_commit(
                simulation_id=self.simulation.pk,
                groups=[(work.step, made) for work, made in decided],
                steps=steps,
            )
        except TRANSIENT:
            for work, _ in decided:
                work.not_before = time.monotonic() + RETRY_SECONDS
            return
        if outcome is None:  # the run stopped meanwhile (failed, out of budget)
            for work in works:
                self._release(work)
            return
        for index, (work, _) in enumerate(decided):
            if index in outcome.waiting:  # a reflection due is not done
                self._reflect(work)
                work.not_before = time.monotonic() + RETRY_SECONDS
                continue
            self.groups.remove(work)
            for r in work.residents:
                r.step = work.step + 1
                r.tile = outcome.tiles[r.name]
                r.busy = False
        stepped = [r.step for r in self.residents.values()]
        self.most_ahead = max(self.most_ahead, max(stepped) - min(stepped))
        for job_id in outcome.jobs:
            self._run_job(job_id)

    def _decided(self, work: GroupWork) -> list[tuple[str, list[EventDraft]]] | None:
        """The group's decisions; None when one must be made again (a blip) or failed
        the run (`simulation_failed`)."""
        made: list[tuple[str, list[EventDraft]]] = []
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
                self._release(work)
                return None
            if isinstance(drafts, BaseException):
                simulation_fail(
                    simulation=self.simulation, step=work.step, agent=name, error=drafts
                )
                self.simulation_failed = True
                return None
            made.append((name, drafts))
        return made

    def _release(self, work: GroupWork) -> None:
        """Drop the group's work: its residents are free (decided again next round)."""
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


@dataclass
class Committed:
    tiles: dict[str, tuple[int, int]]  # each committed resident's tile after its step
    jobs: list[int]  # the reflection jobs requested
    waiting: set[int]  # the groups (by index) whose reflection due is not done


def groups_commit(
    *,
    simulation_id: int,
    groups: list[tuple[int, list[tuple[str, list[EventDraft]]]]],
    steps: dict[str, int],
) -> Committed | None:
    """In one transaction: apply each group's decisions of its step (`groups`: (step,
    [(resident, drafts)]) in (step, name) order) through the commit rules to the
    projections, then write the log of every step that all residents have committed
    (`steps`: each resident's step before this commit) and stage the rest. A group whose
    reflection due is not done is left out (`waiting`). None when the run no longer
    stands. One process runs a simulation's residents (`ahead_claimed`)."""
    recorder = RecordingBroker()  # the reflection jobs it requests run in this process
    names = [name for _, decided in groups for name, _ in decided]
    with broker_used(recorder), transaction.atomic(durable=True):
        simulation = Simulation.objects.select_for_update().get(pk=simulation_id)
        if simulation.status not in (SimulationStatus.RUNNING, SimulationStatus.PAUSED):
            return None
        for step, decided in groups:
            if simulation.step > step:
                raise RuntimeError(f"step {step} of {decided[0][0]} is committed already")
        committed = committed_agents(simulation=simulation, names=names)
        waiting: set[int] = set()
        applied: list[tuple[int, list[str], list[dict[str, Any]]]] = []
        tiles: dict[str, tuple[int, int]] = {}
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
                waiting.add(index)
                continue
            applied.append((step, group, staged))
            for name in group:
                tiles[name] = (agents[name].tile_x, agents[name].tile_y)
                after[name] = step + 1
            for event in staged:
                if event["kind"] == AGENT_MOVED and event["agent"] in agents:
                    x, y = event["payload"]["tile"]
                    tiles[event["agent"]] = (x, y)
        lowest = min(after.values(), default=simulation.step)
        # A step that every resident has now committed goes to the log at once, unstaged.
        StagedCommit.objects.bulk_create(
            StagedCommit(simulation=simulation, step=step, agents=group, events=staged)
            for step, group, staged in applied
            if step >= lowest
        )
        fresh: dict[int, list[dict[str, Any]]] = defaultdict(list)
        for step, _, staged in applied:
            if step < lowest:
                fresh[step] += staged
        if simulation.step < lowest:
            # Every step the log catches up on, its staged commits read in one go.
            commits: dict[int, list[StagedCommit]] = defaultdict(list)
            for commit in StagedCommit.objects.filter(
                simulation=simulation, step__gte=simulation.step, step__lt=lowest
            ):
                commits[commit.step].append(commit)
            while simulation.step < lowest:
                step = simulation.step
                _log_write(simulation, step, fresh.get(step, []), commits.get(step, []))
    jobs = [work.job_id for work in recorder.sent if isinstance(work, Reflect)]
    return Committed(tiles=tiles, jobs=jobs, waiting=waiting)


def _group_apply(
    simulation: Simulation,
    step: int,
    decided: list[tuple[str, list[EventDraft]]],
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


def log_write_step(*, simulation_id: int, step: int) -> bool:
    """Append step `step`'s staged events (all its groups have committed); False when the
    simulation is not at `step` any more."""
    with transaction.atomic(durable=True):
        simulation = Simulation.objects.select_for_update().get(pk=simulation_id)
        if simulation.step != step:
            return False
        _log_write(simulation, step)
    return True


def _log_write(
    simulation: Simulation,
    step: int,
    fresh: Sequence[dict[str, Any]] = (),
    commits: list[StagedCommit] | None = None,
) -> None:
    """Append step `step`'s events (those staged: `commits` when read already, and
    `fresh` ones of this transaction) in the barrier's order, and `simulation.stepped`
    (the simulation's row is locked); ends the run at its target."""
    if commits is None:
        commits = list(StagedCommit.objects.filter(simulation=simulation, step=step))
    staged = [e for c in commits for e in c.events] + list(fresh)
    staged.sort(key=lambda e: tuple(e["key"]))  # stable: each decider's own order
    drafts = [EventDraft(kind=e["kind"], agent=e["agent"], payload=e["payload"]) for e in staged]
    stepped = simulation_stepped(step=step + 1)
    events_project(simulation=simulation, drafts=[stepped], step=step + 1)
    events_append(simulation=simulation, drafts=[*drafts, stepped], step=step + 1, projected=False)
    if commits:
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
