"""The tick engine in one process: determinism, rebuild, fork, failures and resume."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection

from agents.cognition import StepContext, cognition_register
from agents.cognition.minimal import MinimalCognition
from agents.services import simulation_create_from_base
from runtime import engine, work
from runtime.dispatch import Tick, TickCommit, Work
from runtime.engine import barrier
from runtime.engine.choice import engine_tick
from runtime.models import Decision
from tests.factories import N3
from world.eventlog import EventDraft, simulation_fork, simulation_rebuild, simulation_snapshot
from world.models import Agent, Event, Simulation, SimulationStatus


def log_of(simulation: Simulation, **filters: object) -> list[tuple[Any, ...]]:
    return list(
        Event.objects.filter(simulation=simulation, **filters)
        .order_by("seq")
        .values_list("seq", "step", "sim_time", "kind", "agent", "payload")
    )


def _new(user: User, seed: int = 3, **config: object) -> Simulation:
    config = {"cognition": "minimal", **config}  # the engine's driver, unless one is named
    return simulation_create_from_base(owner=user, base=N3, seed=seed, config=config)


@pytest.mark.django_db(transaction=True)
def test_same_seed_same_log_and_rebuild_equals_live(user: User) -> None:
    first = engine.simulation_run_inline(simulation=_new(user), steps=120)
    second = engine.simulation_run_inline(simulation=_new(user), steps=120)
    assert first.step == second.step == 120
    assert first.status == SimulationStatus.IDLE and first.status_reason == "reached step 120"
    assert log_of(first) == log_of(second)
    kinds = {row[3] for row in log_of(first)}
    assert {"agent.headed", "agent.moved", "agent.perceived"} <= kinds, kinds
    live = simulation_snapshot(simulation=first)
    simulation_rebuild(simulation=first)
    assert simulation_snapshot(simulation=first) == live
    different = engine.simulation_run_inline(simulation=_new(user, seed=4), steps=120)
    assert log_of(different) != log_of(first)


@pytest.mark.django_db(transaction=True)
def test_fork_then_run_gives_the_parents_log(user: User) -> None:
    parent = engine.simulation_run_inline(simulation=_new(user), steps=90)
    child = simulation_fork(simulation=parent, step=40)
    child = engine.simulation_run_inline(simulation=child, steps=50)
    assert child.step == 90
    assert log_of(child) == log_of(parent)


@pytest.mark.django_db(transaction=True)
def test_walks_follow_known_places_on_walkable_tiles(user: User) -> None:
    from world.paths import walkable

    simulation = engine.simulation_run_inline(simulation=_new(user), steps=120)
    headed = list(Event.objects.filter(simulation=simulation, kind="agent.headed"))
    assert headed, "nobody set off anywhere"
    for event in headed:
        agent = simulation.agents.get(name=event.agent)
        world, sector, arena = event.payload["destination"].split(":")
        assert arena in agent.spatial_memory[world][sector]
        for x, y in event.payload["path"]:
            assert walkable(town=simulation.town, tile=(x, y))


@pytest.mark.django_db(transaction=True)
def test_agent_steps_twice_store_one_decision(user: User, sent_work: list[Work]) -> None:
    simulation = _new(user)
    sent = sent_work
    engine.simulation_run(simulation=simulation, steps=1)
    names = ["Isabella Rodriguez", "Klaus Mueller", "Maria Lopez"]
    barrier.agent_steps(simulation_id=simulation.pk, step=0, names=names[:2])
    barrier.agent_steps(simulation_id=simulation.pk, step=0, names=names[:2])
    assert Decision.objects.filter(simulation=simulation).count() == 2
    assert TickCommit(simulation.pk, 0) not in sent
    barrier.agent_steps(simulation_id=simulation.pk, step=0, names=names)
    assert Decision.objects.filter(simulation=simulation).count() == 3
    assert sent.count(TickCommit(simulation.pk, 0)) == 1
    barrier.tick_commit(simulation_id=simulation.pk, step=0)
    barrier.tick_commit(simulation_id=simulation.pk, step=0)  # a duplicate does nothing
    simulation.refresh_from_db()
    assert simulation.step == 1
    assert len(log_of(simulation, kind="simulation.stepped")) == 1
    assert not Decision.objects.filter(simulation=simulation).exists()


@pytest.mark.django_db(transaction=True)
def test_a_newcomer_joining_mid_step_stands_still_and_the_step_commits(
    user: User, sent_work: list[Work]
) -> None:
    """A user steps into the town while a tick is in flight: the residents' decisions
    were asked for without it, so it stands still that step, and the step still commits
    (it used to wait for the newcomer's decision forever)."""
    from runtime.controls import newcomer_create

    simulation = _new(user)
    sent = sent_work
    engine.simulation_run(simulation=simulation, steps=2)
    names = ["Isabella Rodriguez", "Klaus Mueller", "Maria Lopez"]
    barrier.agent_steps(simulation_id=simulation.pk, step=0, names=names[:2])
    newcomer_create(simulation=simulation, name="Ada Visitor", address="the Ville:Hobbs Cafe:cafe")
    barrier.agent_steps(simulation_id=simulation.pk, step=0, names=names[2:])
    assert sent.count(TickCommit(simulation.pk, 0)) == 1
    barrier.tick_commit(simulation_id=simulation.pk, step=0)
    engine.engine_tick(simulation_id=simulation.pk, step=1)  # one shard: all four decided
    simulation.refresh_from_db()
    assert (simulation.step, simulation.status) == (2, SimulationStatus.IDLE)
    assert not Decision.objects.filter(simulation=simulation).exists()
    ada = [(row[1], row[3]) for row in log_of(simulation) if row[4] == "Ada Visitor"]
    assert ("agent.created", 0) in [(kind, step) for step, kind in ada]
    assert not [kind for step, kind in ada if step == 1]  # still in the step she joined
    assert [kind for step, kind in ada if step == 2] == ["agent.perceived"], ada  # then decided


@pytest.mark.django_db(transaction=True)
def test_a_redelivered_task_sends_the_tick_its_dead_worker_never_sent(
    user: User, sent_work: list[Work]
) -> None:
    """A worker that dies between a tick's commit and sending the next tick leaves the run
    stalled unless the broker's redelivery of its task sends that tick again; a late
    duplicate delivered for the first time sends nothing (it would fork the chain)."""
    simulation = _new(user)
    sent = sent_work
    engine.simulation_run(simulation=simulation, steps=3)
    engine.engine_tick(simulation_id=simulation.pk, step=0)  # commits step 0
    assert sent == [Tick(simulation.pk, 0), Tick(simulation.pk, 1)]
    sent.clear()  # the worker died before the tick of step 1 reached the broker
    engine.engine_tick(simulation_id=simulation.pk, step=0)
    barrier.tick_commit(simulation_id=simulation.pk, step=0)
    assert sent == []
    engine.engine_tick(simulation_id=simulation.pk, step=0, redelivered=True)
    barrier.tick_commit(simulation_id=simulation.pk, step=0, redelivered=True)
    assert sent == [Tick(simulation.pk, 1)] * 2
    engine.engine_tick(simulation_id=simulation.pk, step=1)
    engine.engine_tick(simulation_id=simulation.pk, step=1)  # the second copy finds it done
    engine.engine_tick(simulation_id=simulation.pk, step=2)
    simulation.refresh_from_db()
    assert (simulation.step, simulation.status) == (3, SimulationStatus.IDLE)
    stepped = [row[5]["step"] for row in log_of(simulation, kind="simulation.stepped")]
    assert stepped == [1, 2, 3]
    before = list(sent)
    engine.engine_tick(simulation_id=simulation.pk, step=2, redelivered=True)
    assert sent == before  # the run is over: nothing to hand on


@pytest.mark.django_db(transaction=True)
def test_an_embedding_server_failure_fails_the_step_cleanly_and_resume_goes_on(
    user: User, settings: Any, model_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from collections import OrderedDict

    from memories import embeddings

    settings.SMALLVILLE_EMBEDDING_BACKEND = "openai"
    settings.SMALLVILLE_EMBEDDING_BASE_URL = model_server.base_url
    # An e5 model: queries and memories ("passage: ") are told apart, and only the
    # memories made by a step fail, after the agents decided.
    settings.SMALLVILLE_EMBEDDING_MODEL = "intfloat/multilingual-e5-small"
    settings.SMALLVILLE_LLM_MAX_RETRIES = 0
    model_server.embedding_dimensions = 384
    model_server.embedding_errors_for = "passage: "
    monkeypatch.setattr(embeddings, "_memo", OrderedDict())
    simulation = simulation_create_from_base(
        owner=user,
        base=N3,
        seed=3,
        config={"cognition": "paper"},
        start_time=datetime(2023, 2, 13, 7, 0, tzinfo=UTC),  # they plan: plan memories
    )
    model_server.embedding_errors = 10_000
    simulation = engine.simulation_run_inline(simulation=simulation, steps=6)
    assert simulation.status == SimulationStatus.FAILED, simulation.status_reason
    assert "embedding its memories: EmbeddingBackendError" in simulation.status_reason
    failed_at = simulation.step
    assert failed_at < 6
    assert not Event.objects.filter(simulation=simulation, step__gt=failed_at).exists()
    assert not Decision.objects.filter(simulation=simulation).exists()

    model_server.embedding_errors = 0
    steps = engine.steps_to_target(simulation=simulation)
    resumed = engine.simulation_run_inline(simulation=simulation, steps=steps)
    assert (resumed.status, resumed.step) == (SimulationStatus.IDLE, 6)


class ExplodingCognition(MinimalCognition):
    """Minimal cognition that fails for Klaus at step 30 while `armed`."""

    armed = True

    def decide(self, *, context: StepContext, agent: Agent) -> list[EventDraft]:
        if self.armed and context.step == 30 and agent.name == "Klaus Mueller":
            raise RuntimeError("the model answered nonsense")
        return super().decide(context=context, agent=agent)


@pytest.mark.django_db(transaction=True)
def test_failed_step_stops_cleanly_and_resume_continues(user: User) -> None:
    cognition_register("exploding", ExplodingCognition)
    simulation = engine.simulation_run_inline(
        simulation=_new(user, cognition="exploding"), steps=60
    )
    assert simulation.status == SimulationStatus.FAILED
    assert simulation.step == 30
    assert "Klaus Mueller" in simulation.status_reason
    assert "the model answered nonsense" in simulation.status_reason
    # Nothing of step 31 was applied.
    assert not Event.objects.filter(simulation=simulation, step__gt=30).exists()
    live = simulation_snapshot(simulation=simulation)
    simulation_rebuild(simulation=simulation)
    assert simulation_snapshot(simulation=simulation) == live

    ExplodingCognition.armed = False
    try:
        steps = engine.steps_to_target(simulation=simulation)
        resumed = engine.simulation_run_inline(simulation=simulation, steps=steps)
    finally:
        ExplodingCognition.armed = True
    assert resumed.status == SimulationStatus.IDLE and resumed.step == 60
    # The same log as a run that never failed (but for the config naming the cognition).
    plain = engine.simulation_run_inline(simulation=_new(user), steps=60)
    assert log_of(resumed, seq__gt=1) == log_of(plain, seq__gt=1)


@pytest.mark.django_db(transaction=True)
def test_a_run_in_process_outlives_a_dropped_database_connection(
    user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The database drops the run's connection at a tick: the work is run again, as a
    worker's broker would deliver it again, and the log is the uninterrupted run's."""
    reference = engine.simulation_run_inline(simulation=_new(user), steps=30)
    ticks = 0

    def dropped(**kwargs: Any) -> None:
        nonlocal ticks
        ticks += 1
        if ticks == 10:
            with connection.cursor() as cursor:  # the server ends this very connection
                cursor.execute("SELECT pg_terminate_backend(pg_backend_pid())")
        engine_tick(**kwargs)

    monkeypatch.setattr(work, "engine_tick", dropped)
    simulation = engine.simulation_run_inline(simulation=_new(user), steps=30)
    assert ticks == 31  # the dropped tick ran again
    assert simulation.status == SimulationStatus.IDLE and simulation.step == 30
    uninterrupted = [row[1:] for row in log_of(reference)]  # all but the seq numbers
    assert [row[1:] for row in log_of(simulation)] == uninterrupted
