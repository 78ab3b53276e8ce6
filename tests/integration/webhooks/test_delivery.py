"""Webhook deliveries through a real Celery worker on the real Redis broker to a real HTTP
receiver: a run that finishes is delivered signed, retried with backoff after 500s with
the same id and body, and a webhook that keeps failing is disabled with the reason."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from agents.services import simulation_create_from_base
from integration.webhooks.delivery import retry_delay
from integration.webhooks.models import (
    DeliveryStatus,
    WebhookDelivery,
    WebhookEvent,
    WebhookSubscription,
)
from integration.webhooks.services import webhook_create, webhooks_notify
from integration.webhooks.signing import HEADER_ID
from runtime import engine
from tests.factories import N3
from tests.integration.webhooks.receiver import (
    BACKOFF,
    WORKER,
    Receiver,
    assert_attempts_of_one_delivery,
)
from tests.runtime.workers import celery_worker, wait_for
from world.models import Simulation, SimulationStatus


@pytest.fixture(autouse=True)
def private_urls_allowed(settings: Any) -> None:
    settings.SMALLVILLE_WEBHOOKS_ALLOW_PRIVATE = True


def _finished(simulation: Simulation) -> bool:
    simulation.refresh_from_db()
    return simulation.status != SimulationStatus.RUNNING


@pytest.mark.django_db(transaction=True)
def test_a_finished_run_is_delivered_signed_and_retried_after_two_500s(
    user: User, receiver: Receiver
) -> None:
    receiver.answers = [500, 500]
    made = webhook_create(
        user=user, url=receiver.url, events=["run.finished", "run.failed"], name="lab"
    )
    simulation = simulation_create_from_base(
        owner=user, base=N3, seed=5, config={"cognition": "minimal"}
    )
    with celery_worker(**WORKER):
        engine.simulation_run(simulation=simulation, steps=2)
        wait_for(lambda: _finished(simulation), 120, "the run")
        wait_for(lambda: len(receiver.got()) >= 3, 60, "the third attempt")
        delivery = WebhookDelivery.objects.get()
        wait_for(
            lambda: WebhookDelivery.objects.get().status == DeliveryStatus.SUCCEEDED,
            30,
            "the delivery's log",
        )
    assert simulation.status == SimulationStatus.IDLE and simulation.step == 2

    got = receiver.got()
    assert [r.answered for r in got] == [500, 500, 200]
    assert_attempts_of_one_delivery(
        got, secret=made.secret, event="run.finished", delivery_id=str(delivery.pk), backoff=BACKOFF
    )
    body = json.loads(got[0].body)
    assert body["id"] == str(delivery.pk) and body["event"] == "run.finished"
    assert body["data"]["simulation"]["id"] == simulation.pk
    assert body["data"]["simulation"]["status"] == "idle"
    assert body["data"]["simulation"]["step"] == 2

    delivery.refresh_from_db()
    assert delivery.attempts == 3 and delivery.response_code == 200
    assert delivery.finished_at is not None
    assert WebhookSubscription.objects.get().failures == 0


@pytest.mark.django_db(transaction=True)
def test_a_webhook_that_keeps_failing_is_disabled_with_the_reason(
    user: User, receiver: Receiver
) -> None:
    receiver.answers = [503] * 100
    made = webhook_create(user=user, url=receiver.url, events=["evaluation.done"])
    simulation = simulation_create_from_base(owner=user, base=N3, seed=6)
    give_up = {
        **WORKER,
        "SMALLVILLE_WEBHOOKS_RETRY_FOR": "1",
        "SMALLVILLE_WEBHOOKS_DISABLE_AFTER": "2",
    }
    with celery_worker(**give_up):
        for _ in range(2):
            webhooks_notify(
                user_id=user.pk,
                simulation_id=simulation.pk,
                event=WebhookEvent.EVALUATION_DONE,
                data={"evaluation": {"simulation": simulation.pk}},
            )
        wait_for(lambda: not WebhookSubscription.objects.get().active, 60, "the webhook disabled")
    subscription = WebhookSubscription.objects.get(pk=made.subscription.pk)
    assert subscription.failures == 2
    assert "2 deliveries in a row failed" in subscription.disabled_reason
    assert "503" in subscription.disabled_reason
    assert set(WebhookDelivery.objects.values_list("status", flat=True)) == {"failed"}
    assert all(d.attempts >= 1 for d in WebhookDelivery.objects.all())
    assert {r.answered for r in receiver.got()} == {503}

    # Disabled: a new event makes no delivery.
    assert not webhooks_notify(
        user_id=user.pk,
        simulation_id=simulation.pk,
        event=WebhookEvent.EVALUATION_DONE,
        data={},
    )


@pytest.mark.django_db(transaction=True)
def test_a_delivery_whose_task_was_lost_is_sent_by_the_watchdog(
    user: User, receiver: Receiver
) -> None:
    """At least once: a delivery committed with its cause but whose message never reached
    the broker (Redis down at that moment, a process killed right after the commit)."""
    made = webhook_create(user=user, url=receiver.url, events=["run.failed"])
    now = timezone.now()
    lost = WebhookDelivery.objects.create(
        subscription=made.subscription,
        event=WebhookEvent.RUN_FAILED,
        body='{"event":"run.failed"}',
        next_attempt_at=now,
        queued_at=None,  # no task on its way
    )
    with celery_worker(**WORKER):  # its watchdog looks every second
        wait_for(lambda: len(receiver.got()) >= 1, 60, "the delivery")
        wait_for(
            lambda: WebhookDelivery.objects.get().status == DeliveryStatus.SUCCEEDED,
            30,
            "the delivery's log",
        )
    [request] = receiver.got()
    assert request.headers[HEADER_ID] == str(lost.pk)
    assert request.body == b'{"event":"run.failed"}'


@pytest.mark.django_db(transaction=True)
def test_log_events_of_a_running_simulation_arrive_once_in_seq_order(
    user: User, receiver: Receiver
) -> None:
    simulation = simulation_create_from_base(
        owner=user, base=N3, seed=7, config={"cognition": "minimal"}
    )
    webhook_create(
        user=user,
        url=receiver.url,
        events=["simulation.events", "run.finished"],
        log_kinds=["simulation.stepped"],
        simulation_id=simulation.pk,
    )
    with celery_worker(**WORKER):
        engine.simulation_run(simulation=simulation, steps=4)
        wait_for(lambda: _finished(simulation), 120, "the run")

        def stepped() -> list[int]:
            bodies = [json.loads(r.body) for r in receiver.got()]
            logged = [b for b in bodies if b["event"] == "simulation.events"]
            return [e["payload"]["step"] for b in logged for e in b["data"]["events"]]

        wait_for(lambda: stepped()[-1:] == [4], 60, "the last step's event")
    assert stepped() == [1, 2, 3, 4]
    assert len({r.headers[HEADER_ID] for r in receiver.got()}) == len(receiver.got())


def test_the_backoff_doubles_up_to_its_cap(settings: Any) -> None:
    settings.SMALLVILLE_WEBHOOKS_BACKOFF = 30
    settings.SMALLVILLE_WEBHOOKS_BACKOFF_MAX = 3600
    assert [retry_delay(n) for n in (1, 2, 3, 7, 8, 20)] == [30, 60, 120, 1920, 3600, 3600]
