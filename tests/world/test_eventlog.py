"""The event log: gap-free seq, rebuild equals live, fork equals parent up to its step."""

from __future__ import annotations

import threading

import pytest
from django.contrib.auth.models import User
from django.db import connection

from agents.events import AGENT_MOVED
from tests.factories import simulation_of
from world.eventlog import (
    EventDraft,
    events_append,
    simulation_fork,
    simulation_rebuild,
    simulation_snapshot,
)
from world.events import SIMULATION_STEPPED
from world.models import Event, Simulation


def _event_rows(simulation: Simulation, **filters: object) -> list[tuple[object, ...]]:
    return list(
        Event.objects.filter(simulation=simulation, **filters)
        .order_by("seq")
        .values_list("seq", "step", "sim_time", "kind", "agent", "payload")
    )


def _advance(simulation: Simulation, steps: int) -> None:
    """Move every resident one tile east per step, as a tick would."""
    for _ in range(steps):
        step = simulation.step + 1
        drafts = [
            EventDraft(kind=AGENT_MOVED, agent=a.name, payload={"tile": [a.tile_x + 1, a.tile_y]})
            for a in simulation.agents.order_by("name")
        ]
        drafts.append(EventDraft(kind=SIMULATION_STEPPED, payload={"step": step}))
        events_append(simulation=simulation, drafts=drafts, step=step)


@pytest.fixture
def simulation(user: User, ville: object) -> Simulation:
    return simulation_of(user)


@pytest.mark.django_db
def test_created_simulation_is_its_events(simulation: Simulation) -> None:
    kinds = [row[3] for row in _event_rows(simulation)]
    seeds = sum(len(agent.seed_statements) for agent in simulation.agents.all())
    assert kinds == ["simulation.created"] + ["agent.created"] * 3 + ["memory.created"] * seeds
    assert [row[0] for row in _event_rows(simulation)] == list(range(1, 4 + seeds + 1))
    assert simulation.agents.count() == 3
    klaus = simulation.agents.get(name="Klaus Mueller")
    assert (klaus.tile_x, klaus.tile_y) == (126, 46)
    assert klaus.seed_statements, "seed statements are kept for the memory stream"


@pytest.mark.django_db
def test_rebuild_gives_identical_projections(simulation: Simulation) -> None:
    _advance(simulation, 3)
    live = simulation_snapshot(simulation=simulation)
    assert live["simulation"]["step"] == 3
    simulation_rebuild(simulation=simulation)
    assert simulation_snapshot(simulation=simulation) == live


@pytest.mark.django_db
def test_fork_log_equals_parent_up_to_fork_step(simulation: Simulation) -> None:
    _advance(simulation, 4)
    child = simulation_fork(simulation=simulation, step=2)
    assert child.parent_id == simulation.pk and child.step == 2
    assert _event_rows(child) == _event_rows(simulation, step__lte=2)
    assert child.last_seq == _event_rows(child)[-1][0]
    # The fork's projections are those the parent had at step 2.
    klaus = child.agents.get(name="Klaus Mueller")
    assert (klaus.tile_x, klaus.tile_y) == (126 + 2, 46)
    # The fork goes on with its own log, leaving the parent's untouched.
    parent_log = _event_rows(simulation)
    _advance(child, 1)
    assert _event_rows(simulation) == parent_log
    assert [row[0] for row in _event_rows(child)] == list(range(1, child.last_seq + 1))


@pytest.mark.django_db
def test_fork_beyond_current_step_is_refused(simulation: Simulation) -> None:
    with pytest.raises(ValueError, match="between 0 and 0"):
        simulation_fork(simulation=simulation, step=5)
    assert Simulation.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_concurrent_appends_keep_seq_gap_free(user: User) -> None:
    simulation = simulation_of(user)
    created = Event.objects.filter(simulation=simulation).count()
    errors: list[BaseException] = []

    def writer(n: int) -> None:
        try:
            for i in range(10):
                events_append(
                    simulation=Simulation.objects.get(pk=simulation.pk),
                    drafts=[EventDraft(kind="test.note", payload={"writer": n, "i": i})] * 3,
                )
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connection.close()  # this thread's own: persistent ones would outlive the test database

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    seqs = [row[0] for row in _event_rows(simulation)]
    assert seqs == list(range(1, created + 4 * 10 * 3 + 1))
