"""Per-simulation budgets: the simulation stops at the limit, and nothing written is lost."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import transaction

from agents.services import residents_seed_memories
from agents.tasks.importance import importance_rate
from llm.models import ModelCall, ModelUsage
from llm.port import BudgetExhausted, ModelCallInTransaction, ModelUnavailable
from llm.selectors import model_call_summary
from memories.models import Memory
from tests.factories import unseeded_simulation
from tests.model_server import ModelServer, error
from world.eventlog import EventDraft, events_append
from world.models import Agent, Event, Simulation, SimulationStatus

RATED = "test.importance_rated"


def seed_memories(simulation: Simulation) -> list[tuple[Agent, str]]:
    return [
        (agent, statement)
        for agent in simulation.agents.order_by("name")
        for statement in agent.seed_statements
    ]


def rate_and_record(simulation: Simulation, agent: Agent, statement: str) -> None:
    """A caller's pattern: ask the model, then write the answer in its own transaction."""
    importance = importance_rate(agent=agent, memory=statement, simulation=simulation)
    events_append(
        simulation=simulation,
        drafts=[EventDraft(kind=RATED, agent=agent.name, payload={"importance": importance})],
    )


@pytest.mark.django_db
def test_ten_call_budget_stops_at_the_limit_losing_nothing(simulation: Simulation) -> None:
    Simulation.objects.filter(pk=simulation.pk).update(
        budget_calls=10, status=SimulationStatus.RUNNING
    )
    simulation.refresh_from_db()
    memories = seed_memories(simulation)
    assert len(memories) > 10

    for agent, statement in memories[:10]:
        rate_and_record(simulation, agent, statement)
    with pytest.raises(BudgetExhausted) as stop:
        rate_and_record(simulation, *memories[10])

    assert str(stop.value) == "model budget exhausted: used 10 of 10 model calls"
    assert stop.value.simulation_id == simulation.pk
    simulation.refresh_from_db()
    assert simulation.status == SimulationStatus.BUDGET_EXHAUSTED
    assert simulation.status_reason == str(stop.value)
    calls = ModelCall.objects.filter(simulation=simulation).order_by("id")
    assert calls.count() == 10  # the refused call was never made, so it is not a row
    assert all(call.error == "" and call.finished_at for call in calls)
    rated = Event.objects.filter(simulation=simulation, kind=RATED).order_by("seq")
    assert [e.payload["importance"] for e in rated] == [
        (c.output or {})["importance"] for c in calls
    ]
    assert ModelUsage.objects.get(simulation=simulation).calls == 10

    with pytest.raises(BudgetExhausted):  # it stays stopped
        rate_and_record(simulation, *memories[11])
    assert ModelCall.objects.filter(simulation=simulation).count() == 10


@pytest.mark.django_db
def test_raising_the_budget_lets_calls_through_again(simulation: Simulation) -> None:
    (agent, first), (_, second) = seed_memories(simulation)[:2]
    Simulation.objects.filter(pk=simulation.pk).update(budget_calls=1)
    importance_rate(agent=agent, memory=first, simulation=simulation)
    with pytest.raises(BudgetExhausted):
        importance_rate(agent=agent, memory=second, simulation=simulation)
    # The same call as the first is not billed again: its answer is taken, budget or not.
    importance_rate(agent=agent, memory=first, simulation=simulation)
    Simulation.objects.filter(pk=simulation.pk).update(budget_calls=2)
    importance_rate(agent=agent, memory=second, simulation=simulation)
    assert ModelCall.objects.filter(simulation=simulation).count() == 2


@pytest.mark.django_db
def test_token_budget_stops_after_the_call_that_crosses_it(simulation: Simulation) -> None:
    Simulation.objects.filter(pk=simulation.pk).update(budget_tokens=300)
    made = 0
    with pytest.raises(BudgetExhausted) as stop:
        for agent, statement in seed_memories(simulation):  # each call its own
            importance_rate(agent=agent, memory=statement, simulation=simulation)
            made += 1
    calls = list(ModelCall.objects.filter(simulation=simulation).order_by("id"))
    spent = sum(call.total_tokens for call in calls)
    assert len(calls) == made >= 1
    assert spent >= 300 > spent - calls[-1].total_tokens  # over by at most one call
    assert str(stop.value) == f"model budget exhausted: used {spent} of 300 tokens"
    assert model_call_summary(simulation=simulation)["budget"]["tokens_used"] == spent


@pytest.mark.django_db
def test_failed_calls_count_against_the_budget(
    simulation: Simulation, openai_llm: ModelServer, settings: Any
) -> None:
    settings.SMALLVILLE_LLM_MAX_RETRIES = 0
    agent, statement = seed_memories(simulation)[0]
    Simulation.objects.filter(pk=simulation.pk).update(budget_calls=1)
    openai_llm.push(error(500))
    with pytest.raises(ModelUnavailable):
        importance_rate(agent=agent, memory=statement, simulation=simulation)
    with pytest.raises(BudgetExhausted):
        importance_rate(agent=agent, memory=statement, simulation=simulation)
    assert len(openai_llm.requests) == 1


@pytest.mark.django_db
def test_no_model_call_inside_a_transaction(simulation: Simulation) -> None:
    agent, statement = seed_memories(simulation)[0]
    with pytest.raises(ModelCallInTransaction), transaction.atomic():
        importance_rate(agent=agent, memory=statement, simulation=simulation)
    assert not ModelCall.objects.exists()


@pytest.mark.django_db
def test_seeding_that_runs_out_keeps_what_it_paid_for_and_resumes(
    simulation: Simulation,
) -> None:
    Simulation.objects.filter(pk=simulation.pk).update(budget_calls=10)
    with pytest.raises(BudgetExhausted):
        residents_seed_memories(simulation=simulation)
    simulation.refresh_from_db()
    assert simulation.status == SimulationStatus.BUDGET_EXHAUSTED
    assert ModelCall.objects.filter(simulation=simulation).count() == 10
    assert not Memory.objects.filter(simulation=simulation).exists()  # no partial set
    assert simulation.agents.count() == 3 and simulation.events.exists()

    Simulation.objects.filter(pk=simulation.pk).update(budget_calls=None)
    assert residents_seed_memories(simulation=simulation) == 15
    assert Memory.objects.filter(simulation=simulation).count() == 15


@pytest.mark.django_db(transaction=True)
def test_stop_and_ledger_survive_a_caller_that_rolls_back(
    user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With real commits: the caller's failed transaction loses only its own write."""
    simulation = unseeded_simulation(user, monkeypatch)
    Simulation.objects.filter(pk=simulation.pk).update(budget_calls=2)
    memories = seed_memories(simulation)
    rate_and_record(simulation, *memories[0])

    class CallerFailed(Exception):
        pass

    with pytest.raises(CallerFailed), transaction.atomic():
        events_append(simulation=simulation, drafts=[EventDraft(kind=RATED, payload={})])
        raise CallerFailed  # e.g. the tick failed after its model calls
    rate_and_record(simulation, *memories[1])
    with pytest.raises(BudgetExhausted):
        rate_and_record(simulation, *memories[2])

    simulation.refresh_from_db()
    assert simulation.status == SimulationStatus.BUDGET_EXHAUSTED
    assert ModelCall.objects.filter(simulation=simulation).count() == 2
    assert Event.objects.filter(simulation=simulation, kind=RATED).count() == 2


@pytest.mark.django_db(transaction=True)  # threads: each its own connection, committing
def test_the_first_calls_of_a_simulation_at_once_are_all_admitted(
    simulation: Simulation,
) -> None:
    """A simulation's usage row is made by its first call; calls racing to make it must
    all be admitted, not taken for a spent budget (as a fork's first tick would be)."""
    import threading

    from django.db import connection

    assert not ModelUsage.objects.filter(simulation=simulation).exists()
    memories = seed_memories(simulation)[:8]
    errors: list[BaseException] = []
    start = threading.Barrier(len(memories))

    def rate(agent: Agent, statement: str) -> None:
        try:
            start.wait()
            importance_rate(agent=agent, memory=statement, simulation=simulation)
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=rate, args=pair) for pair in memories]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert ModelUsage.objects.get(simulation=simulation).calls == len(memories)
    simulation.refresh_from_db()
    assert simulation.status != SimulationStatus.BUDGET_EXHAUSTED
