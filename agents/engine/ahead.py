"""The engine that lets residents run ahead of each other (docs/architecture.md, "Residents
that do not wait for each other"); `SMALLVILLE_ENGINE = "ahead"`.

The barrier engine decides every resident at step t, then commits the town. Here each
resident keeps its own step, and a *group* (residents at one step near enough to meet)
is decided and committed as soon as nothing it could perceive or touch can still change
under it (the rule: agents/engine/schedule.py).

The groups whose decisions are in commit together, in one transaction
(agents/engine/staging.py), which also writes the log of every step all residents have
passed, in the barrier's order; the log therefore equals the barrier engine's for the
same seed, and projections commute because groups touch disjoint residents and places.
A group whose step decided nothing (a sleeping resident far from anyone) changes no
state: it goes on to its next step without a commit, and the next commit records where
it stands. What the engine has read of the committed state is kept between rounds and
read again only where its own commits changed it (agents/engine/state.py).

One process runs a simulation's residents (its worker's tick task holds the run); the
model calls of many groups are in flight at once, up to `SMALLVILLE_CALLS_IN_FLIGHT`.
A killed worker leaves staged commits that match its projections: the watchdog's resent
tick starts the run again from them.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import close_old_connections, connection

from llm.backends import backend_is_remote
from memories.services import memories_embed
from world.eventlog import EventDraft
from world.models import Agent, Simulation, SimulationStatus
from world.selectors import town_cached

from ..cognition import StepContext, cognition_for
from ..leases import ahead_lease, lease_held
from ..models import StagedCommit
from ..reflection.models import JobStatus, ReflectionJob
from ..reflection.services import reflection_job_run_inline, reflection_quiet
from .failures import TRANSIENT
from .schedule import Resident, groups_ready, reach_of
from .staging import Committed, Decided, groups_commit
from .state import CommittedState
from .steps import _decide_one, simulation_fail

log = logging.getLogger(__name__)

RETRY_SECONDS = 0.05  # a group whose commit waits (a reflection) or whose step hit a blip
FLUSH_SECONDS = 0.5  # steps that decided nothing reach the log at least this often
STATUS_SECONDS = 0.25  # a pause or a stop is seen within this, when nothing commits


def ahead_engine() -> bool:
    return settings.SMALLVILLE_ENGINE == "ahead"


def staged_steps(*, simulation_id: int) -> bool:
    """Whether residents of the simulation stand ahead of its log (a run of this engine
    stopped before they all reached one step)."""
    return StagedCommit.objects.filter(simulation_id=simulation_id).exists()


# --- the run --------------------------------------------------------------------------

_Decision = tuple[str, list[EventDraft] | BaseException]


@dataclass
class GroupWork:
    step: int
    residents: list[Resident]
    decisions: dict[str, Future[_Decision]] = field(default_factory=dict)
    agents: dict[str, Agent] = field(default_factory=dict)  # as they were decided from
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
        # Offline decisions cost microseconds of waiting: made here, one after another.
        self.inline = not backend_is_remote()
        self.pool = ThreadPoolExecutor(
            max_workers=max(1, settings.SMALLVILLE_CALLS_IN_FLIGHT),
            thread_name_prefix="ahead",
        )
        self.state = CommittedState(simulation)
        self.residents = self._load()
        # Residents whose steps that decided nothing no commit has recorded yet.
        self.unrecorded: dict[str, int] = {}
        self.groups: list[GroupWork] = []
        self.reflections: dict[int, Future[None]] = {}
        # Each group as it started: its step, residents, and every resident's step then.
        self.trace: list[tuple[int, tuple[str, ...], dict[str, int]]] = []
        self.pause_limit: int | None = None
        self.most_ahead = 0  # the largest lead of one resident over another, in steps
        self.simulation_failed = False  # a decision failed the run (`_decided`)
        self.committed_at = time.monotonic()  # the last commit (or flush)
        self.checked_at = time.monotonic()  # the last read of the run's status

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
            if time.monotonic() - self.checked_at >= STATUS_SECONDS:
                self.simulation.refresh_from_db()
                self.checked_at = time.monotonic()
            status = self.simulation.status
            if status not in (SimulationStatus.RUNNING, SimulationStatus.PAUSED):
                return  # failed or out of budget: the staged steps wait for a resume
            limit = self._limit(status)
            if all(r.step >= limit for r in self.residents.values()) and not self.groups:
                if not self._flush():
                    return  # the log is at the limit: the run reached its target or paused
                continue
            self._start_groups(limit)
            if not self.groups:
                raise RuntimeError("no group of residents can go")  # the rule forbids it
            self._finish_some()
            if time.monotonic() - self.committed_at >= FLUSH_SECONDS:
                self._flush()

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
        else is within sight of them)."""
        names = [r.name for work in works for r in work.residents]
        agents = self.state.agents(names)
        steps = {r.name: r.step for r in self.residents.values()}
        # What every group reads of the town and of its residents' commitments and
        # ratings (what one group can see, no other changes before its step: the rule).
        nows = {r.name: self.simulation.sim_time_at(w.step) for w in works for r in w.residents}
        setters = self.state.setters()
        commitments = self.state.commitments(agents, nows)
        unrated = self.state.unrated(agents)
        cited = self.state.cited(agents, commitments)
        for work in works:
            work.agents = {r.name: agents[r.name] for r in work.residents}
            context = StepContext(
                simulation=self.simulation, town=self.town, step=work.step, agents=work.agents
            ).preload(
                object_setters=setters,
                commitments_ahead=commitments,
                unrated=unrated,
                cited=cited,
            )
            for r in work.residents:
                if self.inline:
                    done: Future[_Decision] = Future()
                    done.set_result(_decide_one(self.cognition, context, r.name))
                    work.decisions[r.name] = done
                else:
                    work.decisions[r.name] = self.pool.submit(
                        _decide_one, self.cognition, context, r.name
                    )
            self.trace.append((work.step, tuple(r.name for r in work.residents), steps))
            self.groups.append(work)

    def _finish_some(self) -> None:
        """Take the groups whose decisions are in: those that decided nothing go on to
        their next step; the others commit together. Wait for one when none is in."""
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
        decided: list[tuple[GroupWork, Decided]] = []
        for work in sorted(ready, key=lambda w: (w.step, w.residents[0].name)):
            made = self._decided(work)
            if made is None:
                if self.simulation_failed:
                    for other in ready:
                        self._release(other)
                    return
                continue  # decided again
            if self._quiet(work, made):
                self._advance(work)
            else:
                decided.append((work, made))
        if decided:
            self._commit(decided)

    def _quiet(self, work: GroupWork, made: Decided) -> bool:
        """Whether the group's step changes nothing: no events, and no reflection for
        the commit rule to add."""
        return not any(drafts for _, drafts in made) and reflection_quiet(
            simulation=self.simulation, step=work.step, agents=work.agents.values()
        )

    def _advance(self, work: GroupWork) -> None:
        """A step that decided nothing: its residents stand at the next step as they were,
        recorded by the next commit."""
        self.groups.remove(work)
        for r in work.residents:
            r.step = work.step + 1
            r.busy = False
            self.unrecorded[r.name] = r.step
        self._note_lead()

    def _commit(self, decided: list[tuple[GroupWork, Decided]]) -> None:
        """Commit the groups in one transaction, and write the log of every step that all
        residents have passed then."""
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
            for work, _ in decided:
                self._release(work)
            return
        outcome = self._transaction([(work.step, made) for work, made in decided])
        if outcome is None:
            for work, _ in decided:
                work.not_before = time.monotonic() + RETRY_SECONDS
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
        self._note_lead()
        for job_id in outcome.jobs:
            self._run_job(job_id)

    def _flush(self) -> bool:
        """Record the steps that decided nothing and write the log as far as every
        resident has passed; False when there is nothing to do."""
        lowest = min((r.step for r in self.residents.values()), default=self.simulation.step)
        if lowest <= self.simulation.step and not self.unrecorded:
            return False
        self._transaction([])
        return True

    def _transaction(self, groups: list[tuple[int, Decided]]) -> Committed | None:
        """`groups_commit` with every resident's step; None when it must be tried again
        (a blip) or the run stopped meanwhile (then the status says so)."""
        steps = {r.name: r.step for r in self.residents.values()}
        try:
            outcome = groups_commit(
                simulation_id=self.simulation.pk,
                groups=groups,
                steps=steps,
                advanced=dict(self.unrecorded),
            )
        except TRANSIENT:
            time.sleep(
                RETRY_SECONDS
            )  # the database is away: the watchdog takes over if it stays so
            return None
        self.committed_at = self.checked_at = time.monotonic()
        if outcome is None:  # the run stopped meanwhile (failed, out of budget)
            self.simulation.refresh_from_db()
            return None
        self.unrecorded.clear()
        self.simulation.status = outcome.status
        self.simulation.step = outcome.log_step
        self.simulation.last_seq = outcome.seq
        self.state.committed(outcome.events, seq_before=outcome.seq_before, seq=outcome.seq)
        return outcome

    def _note_lead(self) -> None:
        stepped = [r.step for r in self.residents.values()]
        self.most_ahead = max(self.most_ahead, max(stepped) - min(stepped))

    def _decided(self, work: GroupWork) -> Decided | None:
        """The group's decisions; None when one must be made again (a blip) or failed
        the run (`simulation_failed`)."""
        made: Decided = []
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


# --- entry ----------------------------------------------------------------------------


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
