"""Reflection in the tick, in one process: trigger, the due step, depth, determinism."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from agents.events import REFLECTION_DONE, REFLECTION_REQUESTED
from agents.reflection.models import JobStatus, ReflectionJob
from agents.reflection.selectors import reflection_stats
from memories.models import Evidence, Memory, MemoryKind
from runtime import engine
from world.eventlog import simulation_fork, simulation_rebuild, simulation_snapshot
from world.models import Event

from .conftest import log_of, reflecting


@pytest.mark.django_db(transaction=True)
def test_the_threshold_requests_a_reflection_logged_at_the_next_step(user: User) -> None:
    simulation = engine.simulation_run_inline(simulation=reflecting(user), steps=60)
    requests = list(Event.objects.filter(simulation=simulation, kind=REFLECTION_REQUESTED))
    assert requests, "no reflection was requested"
    for request in requests:
        # The sum that crossed the threshold: this commit's observations included.
        assert request.payload["importance"] >= 20
        due = request.payload["due_step"]
        assert due == request.step + 1
        if due > simulation.step:
            continue  # requested by the last commit of the run
        done = Event.objects.get(
            simulation=simulation, kind=REFLECTION_DONE, agent=request.agent, payload__due_step=due
        )
        assert done.step == due
        made = Memory.objects.filter(
            agent__simulation=simulation,
            agent__name=request.agent,
            kind=MemoryKind.REFLECTION,
            created=simulation.sim_time_at(due),
        )
        assert made.count() == done.payload["reflections"] > 0
        assert len(done.payload["questions"]) == 3
        job = ReflectionJob.objects.get(simulation=simulation, agent=request.agent, due_step=due)
        assert job.status == JobStatus.DONE and job.requested_step == request.step
    # The projection reset the sum at each request and cleared the due step at each done.
    for agent in simulation.agents.all():
        assert agent.reflection_due_step in (None, simulation.step + 1)
        assert agent.importance_since_reflection < 20 or agent.reflection_due_step is not None


@pytest.mark.django_db(transaction=True)
def test_every_reflection_cites_earlier_memories_and_some_reach_depth_two(user: User) -> None:
    simulation = engine.simulation_run_inline(simulation=reflecting(user), steps=150)
    reflections = Memory.objects.filter(agent__simulation=simulation, kind=MemoryKind.REFLECTION)
    assert reflections.count() >= 10
    for reflection in reflections:
        cited = [
            link.memory
            for link in Evidence.objects.filter(reflection=reflection).select_related("memory")
        ]
        assert cited, f"reflection {reflection.number} has no evidence"
        assert all(memory.number < reflection.number for memory in cited)
        assert all(memory.agent_id == reflection.agent_id for memory in cited)
        assert reflection.depth == 1 + max(memory.depth for memory in cited)
    deepest = max(reflection.depth for reflection in reflections)
    assert deepest >= 2, "no reflection was built on reflections"
    stats = reflection_stats(simulation)
    assert stats["deepest"] == deepest
    assert stats["residents_reflecting"] == 3
    assert (
        stats["reflections"]
        == Event.objects.filter(simulation=simulation, kind=REFLECTION_DONE).count()
    )


@pytest.mark.django_db(transaction=True)
def test_same_seed_same_log_rebuild_equals_live_and_fork_in_flight(user: User) -> None:
    first = engine.simulation_run_inline(simulation=reflecting(user), steps=90)
    second = engine.simulation_run_inline(simulation=reflecting(user), steps=90)
    assert log_of(first, kind=REFLECTION_DONE), "nothing to compare"
    assert log_of(first, seq__gt=1) == log_of(second, seq__gt=1)
    live = simulation_snapshot(simulation=first)
    simulation_rebuild(simulation=first)
    assert simulation_snapshot(simulation=first) == live

    # Fork right after a request, while its job is in flight: the child has no job row,
    # so the due commit creates and runs it, and the log is the parent's.
    request = (
        Event.objects.filter(simulation=first, kind=REFLECTION_REQUESTED).order_by("seq").first()
    )
    assert request is not None
    child = simulation_fork(simulation=first, step=request.step)
    assert not ReflectionJob.objects.filter(simulation=child).exists()
    child = engine.simulation_run_inline(simulation=child, steps=90 - request.step)
    assert log_of(child) == log_of(first)
