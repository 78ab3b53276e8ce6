"""Where webhook deliveries come from: a run that finishes, fails or stops on its budget,
and an evaluation that ends each make a delivery, in the writer's transaction, for exactly
the subscriptions that ask for it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import User

from agents.tasks.importance import importance_rate
from evaluations.services import (
    evaluation_create,
    evaluation_fail,
    evaluation_finish,
    evaluation_start,
)
from integration.webhooks.models import WebhookDelivery, WebhookSubscription
from integration.webhooks.receivers import simulation_data
from integration.webhooks.services import webhook_create
from llm.port import BudgetExhausted
from runtime import engine
from runtime.engine.failures import run_fails_on_error
from tests.factories import N3, simulation_of, unseeded_simulation
from world.models import Simulation, SimulationStatus


@pytest.fixture(autouse=True)
def private_urls_allowed(settings: Any) -> None:
    settings.SMALLVILLE_WEBHOOKS_ALLOW_PRIVATE = True


def _hook(user: User, *events: str, **fields: Any) -> WebhookSubscription:
    return webhook_create(
        user=user, url="http://127.0.0.1:9/hook", events=list(events), **fields
    ).subscription


def _sent(subscription: WebhookSubscription) -> list[dict[str, Any]]:
    rows = WebhookDelivery.objects.filter(subscription=subscription).order_by("created_at")
    return [json.loads(row.body) for row in rows]


@pytest.mark.django_db(transaction=True)  # the run's ticks are handed on on commit
def test_a_finished_run_is_sent_to_the_webhooks_that_ask_for_it(
    user: User, other_user: User
) -> None:
    simulation = simulation_of(user, N3, seed=3, cognition="minimal")
    elsewhere = simulation_of(user, N3, seed=4, cognition="minimal")
    wanted = _hook(user, "run.finished")
    this_one = _hook(user, "run.finished", simulation_id=simulation.pk)
    failures_only = _hook(user, "run.failed")
    another_simulation = _hook(user, "run.finished", simulation_id=elsewhere.pk)
    not_theirs = _hook(other_user, "run.finished")

    engine.simulation_run_inline(simulation=simulation, steps=2)

    for hook in (wanted, this_one):
        [sent] = _sent(hook)
        assert sent["event"] == "run.finished"
        assert sent["data"]["simulation"] == simulation_data(
            Simulation.objects.get(pk=simulation.pk)
        )
        assert sent["data"]["simulation"]["reason"] == "reached step 2"
    for hook in (failures_only, another_simulation, not_theirs):
        assert _sent(hook) == []


def test_a_failed_run_is_sent_once(user: User) -> None:
    simulation = simulation_of(user, N3, seed=3, cognition="minimal")
    hook = _hook(user, "run.failed")
    Simulation.objects.filter(pk=simulation.pk).update(status=SimulationStatus.RUNNING)
    for _ in range(2):  # a second failure of the same run finds it failed already
        with run_fails_on_error(simulation_id=simulation.pk, step=0, work="the tick"):
            raise ZeroDivisionError("a bug")
    [sent] = _sent(hook)
    assert sent["event"] == "run.failed"
    assert sent["data"]["simulation"]["status"] == "failed"
    assert "ZeroDivisionError: a bug" in sent["data"]["simulation"]["reason"]


def test_a_run_stopped_on_its_budget_is_sent(user: User, monkeypatch: pytest.MonkeyPatch) -> None:
    simulation = unseeded_simulation(user, monkeypatch)
    hook = _hook(user, "run.budget_exhausted")
    Simulation.objects.filter(pk=simulation.pk).update(
        budget_calls=1, status=SimulationStatus.RUNNING
    )
    simulation.refresh_from_db()
    agent = simulation.agents.order_by("name").first()
    assert agent is not None
    importance_rate(agent=agent, memory="the kettle boiled over", simulation=simulation)
    with pytest.raises(BudgetExhausted):
        importance_rate(agent=agent, memory="the lamp went out", simulation=simulation)
    [sent] = _sent(hook)
    assert sent["event"] == "run.budget_exhausted"
    assert sent["data"]["simulation"]["reason"] == "model budget exhausted: used 1 of 1 model calls"


def test_an_evaluation_that_ends_is_sent(user: User) -> None:
    simulation = simulation_of(user, N3, seed=3, cognition="minimal")
    hook = _hook(user, "evaluation.done", "evaluation.failed")
    done = evaluation_create(simulation=simulation, kinds=["diffusion"])
    assert evaluation_start(evaluation=done, total=1)
    assert evaluation_finish(evaluation=done, result={"n": 1})
    failed = evaluation_create(simulation=simulation, kinds=["diffusion"])
    assert evaluation_start(evaluation=failed, total=1)
    assert evaluation_fail(evaluation=failed, reason="the judge kept failing")
    assert not evaluation_finish(evaluation=done, result={"n": 2})  # ended once: no resend
    first, second = _sent(hook)
    assert first["event"] == "evaluation.done"
    assert first["data"]["evaluation"]["id"] == done.pk
    assert first["data"]["evaluation"]["simulation"] == simulation.pk
    assert second["event"] == "evaluation.failed"
    assert second["data"]["evaluation"]["error"] == "the judge kept failing"


@pytest.mark.django_db(transaction=True)
def test_a_disabled_webhook_gets_nothing(user: User) -> None:
    simulation = simulation_of(user, N3, seed=3, cognition="minimal")
    hook = _hook(user, "run.finished")
    WebhookSubscription.objects.filter(pk=hook.pk).update(active=False)
    engine.simulation_run_inline(simulation=simulation, steps=1)
    assert _sent(hook) == []


def test_a_webhook_that_cannot_be_made_does_not_stop_the_run_ending(
    user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    from integration.webhooks import receivers

    def broken(**_: Any) -> None:
        raise RuntimeError("the webhooks table is gone")

    monkeypatch.setattr(receivers, "webhooks_notify", broken)
    simulation = simulation_of(user, N3, seed=3, cognition="minimal")
    _hook(user, "run.failed")
    Simulation.objects.filter(pk=simulation.pk).update(status=SimulationStatus.RUNNING)
    with run_fails_on_error(simulation_id=simulation.pk, step=0, work="the tick"):
        raise ZeroDivisionError("a bug")
    simulation.refresh_from_db()
    assert simulation.status == SimulationStatus.FAILED
    assert "ZeroDivisionError" in simulation.status_reason
