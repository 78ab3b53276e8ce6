"""Run control: claim a run, pause, resume, report progress, and delete a simulation."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.db.models import F, RestrictedError
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerError
from redis.exceptions import RedisError

from agents.reflection.models import JobStatus, ReflectionJob
from llm.models import ModelCall
from llm.selectors import model_call_fallback_rate
from runtime.dispatch import Tick, broker
from runtime.models import Decision
from runtime.pace import PACE_MAX, PACE_MIN
from world.clock import MAX_RUN_STEPS
from world.models import Agent, Event, PaceAlone, Simulation, SimulationStatus
from world.services import simulation_set_status

log = logging.getLogger(__name__)

STARTABLE = (
    SimulationStatus.IDLE,
    SimulationStatus.PAUSED,
    SimulationStatus.FAILED,
    SimulationStatus.BUDGET_EXHAUSTED,
)


class RunRefused(ValueError):
    """The run request cannot be honoured (a bad target, nothing to resume)."""


class RunConflict(RunRefused):
    """The simulation's status does not allow it (already running, or not running)."""


class TickDeferred(Exception):
    """The run is claimed but its first tick could not be handed to the broker (down or
    hung): the workers' watchdog sends a stalled run's tick again once the broker is back.
    Not a failure of the request: the run stands, as queued."""

    def __init__(self, simulation: Simulation) -> None:
        super().__init__(
            f"simulation {simulation.pk} is running; its first tick will be sent when the "
            "broker is back"
        )
        self.simulation = simulation


# What a publish to an unreachable or hung broker raises.
PUBLISH_ERRORS = (BrokerError, RedisError, OSError)


def target_step_for(
    *, simulation: Simulation, steps: int | None = None, until: datetime | None = None
) -> int:
    if (steps is None) == (until is None):
        raise RunRefused("give either steps or until")
    if steps is not None:
        if not 1 <= steps <= MAX_RUN_STEPS:
            raise RunRefused(f"steps must be from 1 to {MAX_RUN_STEPS:,}")
        return simulation.step + steps
    assert until is not None
    seconds = (until - simulation.start_time).total_seconds()
    target = int(seconds // simulation.sec_per_step)
    if target <= simulation.step:
        raise RunRefused(
            f"until must be after the current sim time {simulation.sim_time.isoformat()}"
        )
    if target - simulation.step > MAX_RUN_STEPS:
        raise RunRefused(f"until is more than {MAX_RUN_STEPS:,} steps ahead")
    return target


class PaceKept:
    """`simulation_run`'s pace when none is given: the simulation's own."""


KEPT = PaceKept()


def pace_checked(pace: float | None) -> float | None:
    if pace is not None and not PACE_MIN <= pace <= PACE_MAX:
        raise RunRefused(
            f"pace must be from {PACE_MIN:.6f} to {PACE_MAX:,.0f} sim seconds a wall second"
        )
    return pace


def simulation_run(
    *,
    simulation: Simulation,
    steps: int | None = None,
    until: datetime | None = None,
    pace: float | PaceKept | None = KEPT,
    pace_alone: str | None = None,
) -> Simulation:
    """Start running to a target step; refused if the simulation is already running. A
    `pace` (sim seconds per wall second; None: as fast as it can) and what the run does
    while nobody is in the town (`pace_alone`, PaceAlone) are kept for later runs and
    resumes (runtime/pace.py).

    The first tick is sent once the claim commits; if the broker cannot take it, the claim
    stands and TickDeferred says so (the watchdog resends the tick of a stalled run)."""
    target = target_step_for(simulation=simulation, steps=steps, until=until)
    paced: dict[str, object] = {} if isinstance(pace, PaceKept) else {"pace": pace_checked(pace)}
    if pace_alone is not None:
        if pace_alone not in PaceAlone.values:
            raise RunRefused(f"pace_alone must be one of {', '.join(PaceAlone.values)}")
        paced["pace_alone"] = pace_alone
    unsent: list[BaseException] = []
    now = timezone.now()
    with transaction.atomic(durable=True):
        claimed = Simulation.objects.filter(pk=simulation.pk, status__in=STARTABLE).update(
            status=SimulationStatus.RUNNING,
            status_reason="",
            target_step=target,
            run_started_step=F("step"),
            run_started_at=now,
            pace_from_step=F("step"),
            pace_from_at=now,
            **paced,
        )
        if not claimed:
            raise RunConflict(f"simulation {simulation.pk} is already running")
        simulation.refresh_from_db()
        carrier, tick = broker(), Tick(simulation.pk, simulation.step)

        def publish() -> None:
            try:
                carrier.send(tick)
            except PUBLISH_ERRORS as exc:
                log.warning("tick of simulation %s not sent: %r", simulation.pk, exc)
                unsent.append(exc)

        transaction.on_commit(publish)
    if unsent:
        raise TickDeferred(simulation) from unsent[0]
    return simulation


def simulation_pause(*, simulation: Simulation) -> Simulation:
    """Stop after the tick in flight commits."""
    if not simulation_set_status(
        simulation=simulation,
        status=SimulationStatus.PAUSED,
        reason="paused by request",
        expected=[SimulationStatus.RUNNING],
    ):
        raise RunConflict(f"simulation {simulation.pk} is not running")
    return simulation


def simulation_delete(*, simulation: Simulation) -> None:
    """Delete the simulation with its log, residents, memories and ledger, in one
    transaction; refused (RunConflict) while it runs, while an evaluation of it is under
    way, or while another simulation's evaluation measures it. The row lock orders it
    with a run being claimed: one of the two finds the other's outcome."""
    with transaction.atomic(durable=True):
        locked = Simulation.objects.select_for_update().filter(pk=simulation.pk).first()
        if locked is None:
            return  # deleted meanwhile: nothing left to do
        if locked.status == SimulationStatus.RUNNING:
            raise RunConflict(f"simulation {simulation.pk} is running: pause it first")
        # `evaluations` is the evaluations app's (a layer above): named, not imported.
        if locked.evaluations.filter(status__in=["pending", "running"]).exists():
            raise RunConflict(f"an evaluation of simulation {simulation.pk} is under way")
        try:
            locked.delete()
        except RestrictedError as exc:
            raise RunConflict(
                f"simulation {simulation.pk} is measured by another simulation's evaluation; "
                "delete that simulation first"
            ) from exc


def steps_to_target(*, simulation: Simulation) -> int:
    """Steps left of the last run, for resuming it."""
    simulation.refresh_from_db()
    if simulation.target_step is None or simulation.target_step <= simulation.step:
        raise RunRefused("nothing to resume: the run reached its target; start a new run")
    return simulation.target_step - simulation.step


def simulation_resume(*, simulation: Simulation) -> Simulation:
    """Continue a paused, failed or budget-stopped run towards its target."""
    return simulation_run(simulation=simulation, steps=steps_to_target(simulation=simulation))


@dataclass(frozen=True)
class Progress:
    status: str
    reason: str
    step: int
    target_step: int | None
    sim_time: datetime
    agent_steps_per_second: float | None
    model_calls: int
    fallback_rate: float | None  # the share of calls that took their task's fail-safe answer
    waiting_for: str


def simulation_progress(*, simulation: Simulation) -> Progress:
    simulation.refresh_from_db()
    agents = Agent.present.filter(simulation=simulation).count()
    return Progress(
        status=simulation.status,
        reason=simulation.status_reason,
        step=simulation.step,
        target_step=simulation.target_step,
        sim_time=simulation.sim_time,
        agent_steps_per_second=_rate(simulation, agents),
        model_calls=ModelCall.objects.filter(simulation=simulation).count(),
        fallback_rate=model_call_fallback_rate(simulation=simulation),
        waiting_for=_waiting_for(simulation, agents),
    )


def _rate(simulation: Simulation, agents: int) -> float | None:
    """Agent-steps per second over the run's own span: from its start to now while it
    runs, to its last event once it stopped."""
    if not simulation.run_started_at or simulation.run_started_step is None:
        return None
    end = timezone.now()
    if simulation.status != SimulationStatus.RUNNING:
        last = Event.objects.filter(simulation=simulation).order_by("-seq").first()
        end = last.created_at if last else end
    elapsed = (end - simulation.run_started_at).total_seconds()
    steps = simulation.step - simulation.run_started_step
    if elapsed <= 0 or steps <= 0:
        return None
    return steps * agents / elapsed


def _waiting_for(simulation: Simulation, agents: int) -> str:
    """What a running simulation waits for now, in words; a stopped one's reason."""
    if simulation.status != SimulationStatus.RUNNING:
        return simulation.status_reason
    due = simulation.step + 1
    jobs = ReflectionJob.objects.filter(
        simulation=simulation, due_step=due, status__in=[JobStatus.PENDING, JobStatus.RUNNING]
    ).order_by("agent")
    if jobs:
        each = ", ".join(f"{j.agent} ({j.status}, attempt {j.attempts})" for j in jobs)
        return f"step {due} waits for reflections: {each}"
    decided = Decision.objects.filter(simulation=simulation, step=simulation.step).count()
    if decided < agents:
        return f"deciding step {due}: {decided} of {agents} agents decided"
    return f"committing step {due}"
