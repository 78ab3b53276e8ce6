"""One run of the engine that runs residents ahead of each other (runtime/engine/ahead):
the groups started, decided, advanced or committed together, round after round."""

from __future__ import annotations

import logging
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any

from django.conf import settings

from agents.cognition import cognition_for
from kernel.pools import pool_for_run
from llm.backends import backend_is_remote
from memories.services import memories_embed
from runtime.dispatch import broker
from runtime.engine.ahead.deciding import GroupWork, groups_decide
from runtime.engine.ahead.reflecting import Reflections
from runtime.engine.ahead.schedule import groups_ready, reach_of
from runtime.engine.ahead.spread import Spreading, group_token
from runtime.engine.ahead.staging import Committed, Decided, groups_commit
from runtime.engine.ahead.state import CommittedState, residents_load, residents_vision
from runtime.engine.decide import Decision, simulation_fail
from runtime.engine.failures import TRANSIENT
from runtime.pace import PaceKeeper
from runtime.reflections import reflection_quiet
from runtime.scenarios import scenarios_apply, scenarios_next_step
from world.models import Simulation, SimulationStatus
from world.selectors import town_cached

log = logging.getLogger(__name__)

RETRY_SECONDS = 0.05  # a group whose commit waits (a reflection) or whose step hit a blip
POLL_SECONDS = 0.02  # spread over workers: how often the decisions stored are looked for
FLUSH_SECONDS = 0.5  # steps that decided nothing reach the log at least this often
STATUS_SECONDS = 0.25  # a pause or a stop is seen within this, when nothing commits


# --- the run --------------------------------------------------------------------------


class AheadRun:
    """One run of a simulation to `simulation.target_step` (or, paused, to the furthest
    step any resident reached)."""

    def __init__(self, simulation: Simulation, *, furthest_first: bool = False) -> None:
        self.simulation = simulation
        self.town = town_cached(pk=simulation.town_id)
        self.cognition = cognition_for(simulation)
        self.reach = reach_of(self.town, vision=residents_vision(simulation))
        self.furthest_first = furthest_first  # tests: the order that leads the most
        # Offline decisions cost microseconds of waiting: made here, one after another.
        self.inline = not backend_is_remote()
        self.pool: ThreadPoolExecutor  # the run's own, while it runs (`run`)
        self.state = CommittedState(simulation)
        self.residents = residents_load(simulation)
        # Residents whose steps that decided nothing no commit has recorded yet.
        self.unrecorded: dict[str, int] = {}
        self.groups: list[GroupWork] = []
        self.reflections = Reflections(simulation)  # jobs its commits wait for
        # Each group as it started: its step, residents, and every resident's step then.
        self.trace: list[tuple[int, tuple[str, ...], dict[str, int]]] = []
        self.pause_limit: int | None = None
        self.most_ahead = 0  # the largest lead of one resident over another, in steps
        self.simulation_failed = False  # a decision failed the run (`_decided`)
        self.committed_at = time.monotonic()  # the last commit (or flush)
        self.checked_at = time.monotonic()  # the last read of the run's status
        self.pacing = PaceKeeper()
        # Groups decided by whichever worker is free (spread.py): with a broker whose
        # work goes to workers, not one that runs it in this process.
        self.spreading: Spreading | None = None
        if settings.SMALLVILLE_AHEAD_SPREAD and getattr(broker(), "remote", False):
            self.spreading = Spreading(simulation.pk)

    # The loop ------------------------------------------------------------------------

    def run(self) -> None:
        with pool_for_run("ahead") as self.pool:
            try:
                self._loop()
            finally:
                for work in self.groups:
                    for future in work.decisions.values():
                        future.cancel()
                if self.spreading is not None:
                    self.spreading.close()

    def _loop(self) -> None:
        while True:
            if time.monotonic() - self.checked_at >= STATUS_SECONDS:
                self.simulation.refresh_from_db()
                self.checked_at = time.monotonic()
            status = self.simulation.status
            if status not in (SimulationStatus.RUNNING, SimulationStatus.PAUSED):
                return  # failed or out of budget: the staged steps wait for a resume
            limit = self._limit(status)
            steps = [r.step for r in self.residents.values()]
            paced = self.pacing.limit(self.simulation, status, steps, self.checked_at)
            if paced is not None and paced < limit:
                limit = paced  # nobody steps past the step the pace has come to
            if all(r.step >= limit for r in self.residents.values()) and not self.groups:
                if not self._flush() and not self._scenarios(status):
                    if paced is None or paced >= self._limit(status):
                        return  # the log is at the limit: the run reached its target or paused
                    time.sleep(self.pacing.sleep_for(max(steps)))
                    self.checked_at = 0.0  # read the status again
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
        # Everyone stops at the next scenario's step, for it to apply once the log is there.
        scenario = scenarios_next_step(simulation=self.simulation)
        if scenario is None:
            return self.simulation.target_step
        return min(self.simulation.target_step, max(scenario, self.simulation.step))

    def _scenarios(self, status: str) -> bool:
        """With the log at every resident's step short of the target, apply the scenarios
        due then (as the barrier does at the start of that step) and read the town again
        (its residents may have changed); False when none applied."""
        target = self.simulation.target_step
        if status != SimulationStatus.RUNNING or target is None or self.simulation.step >= target:
            return False
        if not scenarios_apply(simulation_id=self.simulation.pk, step=self.simulation.step):
            return False
        self.simulation.refresh_from_db()
        self.state = CommittedState(self.simulation)
        self.residents = residents_load(self.simulation)
        self.reach = reach_of(self.town, vision=residents_vision(self.simulation))
        return True

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
        else is within sight of them): here, or sent to the workers (spread.py)."""
        steps = {r.name: r.step for r in self.residents.values()}
        agents = self.state.agents([r.name for work in works for r in work.residents])
        for work in works:
            work.agents = {r.name: agents[r.name] for r in work.residents}
            self.trace.append((work.step, tuple(r.name for r in work.residents), steps))
            self.groups.append(work)
        if self.spreading is None:
            self._decide_here(works)
            return
        for work in works:
            work.token = group_token()
            self.spreading.send(work.token, work.step, [r.name for r in work.residents])

    def _decide_here(self, works: list[GroupWork]) -> None:
        groups_decide(
            works,
            simulation=self.simulation,
            town=self.town,
            state=self.state,
            cognition=self.cognition,
            pool=None if self.inline else self.pool,
        )

    def _gather(self) -> None:
        """The groups sent to the workers: take the decisions stored, and decide here
        those no worker took in time (or whose worker died)."""
        assert self.spreading is not None
        sent = {w.token: w for w in self.groups if w.token and not w.decisions}
        for token, decided in self.spreading.arrived(list(sent)).items():
            work = sent.pop(token)
            work.stored = True
            for name, drafts in decided:
                done: Future[Decision] = Future()
                done.set_result((name, drafts))
                work.decisions[name] = done
        self._decide_here([sent[token] for token in self.spreading.overdue(list(sent))])

    def _finish_some(self) -> None:
        """Take the groups whose decisions are in: those that decided nothing go on to
        their next step; the others commit together. Wait for one when none is in."""
        if self.spreading is not None:
            self._gather()
        now = time.monotonic()
        ready = [
            w
            for w in self.groups
            if w.not_before <= now and w.decisions and all(f.done() for f in w.decisions.values())
        ]
        if not ready:
            pending: list[Future[Any]] = [
                f for w in self.groups for f in w.decisions.values() if not f.done()
            ]
            pending += self.reflections.pending()
            if pending:
                wait(pending, timeout=RETRY_SECONDS, return_when=FIRST_COMPLETED)
            else:
                time.sleep(POLL_SECONDS if self.spreading is not None else RETRY_SECONDS)
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
        self._forget([work])
        for r in work.residents:
            r.step = work.step + 1
            r.busy = False
            self.unrecorded[r.name] = r.step
        self._note_lead()

    def _commit(self, decided: list[tuple[GroupWork, Decided]]) -> None:
        """Commit the groups in one transaction, and write the log of every step that all
        residents have passed then."""
        # A worker embedded the memories of the groups it decided.
        drafts = [
            d
            for work, made in decided
            if not work.stored
            for _, group_drafts in made
            for d in group_drafts
        ]
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
                self.reflections.due(self.pool, [r.name for r in work.residents], work.step)
                work.not_before = time.monotonic() + RETRY_SECONDS
                continue
            self.groups.remove(work)
            for r in work.residents:
                r.step = work.step + 1
                r.tile = outcome.tiles[r.name]
                r.busy = False
        self._forget([w for w, _ in decided if w not in self.groups])
        self._note_lead()
        for job_id in outcome.jobs:
            self.reflections.run(self.pool, job_id)

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
        self._forget([work])
        for r in work.residents:
            r.busy = False

    def _forget(self, works: list[GroupWork]) -> None:
        """Groups committed or given up: their rows and leases go (spread over workers)."""
        if self.spreading is not None:
            self.spreading.done([w.token for w in works if w.token])
