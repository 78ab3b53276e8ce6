"""Log events for `simulation.events` webhooks: the sweep sends the events of the chosen
kinds appended since the webhook asked, in seq order, each once."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import User

from integration.webhooks import logfeed
from integration.webhooks.logfeed import log_events_collect
from integration.webhooks.models import WebhookDelivery
from integration.webhooks.services import webhook_create, webhook_update
from tests.factories import N3, simulation_of
from world.eventlog import EventDraft, events_append
from world.models import Simulation

KETTLE = "test.kettle_whistled"


@pytest.fixture(autouse=True)
def private_urls_allowed(settings: Any) -> None:
    settings.SMALLVILLE_WEBHOOKS_ALLOW_PRIVATE = True


def _append(simulation: Simulation, *kinds: str) -> None:
    drafts = [EventDraft(kind=kind, payload={"n": n}) for n, kind in enumerate(kinds)]
    events_append(simulation=Simulation.objects.get(pk=simulation.pk), drafts=drafts)


def _sent() -> list[dict[str, Any]]:
    return [json.loads(d.body) for d in WebhookDelivery.objects.order_by("created_at")]


def test_events_of_the_chosen_kinds_since_subscribing_are_sent_once(user: User) -> None:
    simulation = simulation_of(user, N3, seed=3, cognition="minimal")
    _append(simulation, KETTLE)  # before the webhook: not sent
    hook = webhook_create(
        user=user,
        url="http://127.0.0.1:9/hook",
        events=["simulation.events"],
        log_kinds=[KETTLE],
        simulation_id=simulation.pk,
    ).subscription
    _append(simulation, KETTLE, "test.door_creaked", KETTLE)
    _append(simulation, "test.door_creaked")
    assert log_events_collect() == 1
    assert log_events_collect() == 0  # nothing new: nothing sent again

    [sent] = _sent()
    assert sent["event"] == "simulation.events" and sent["data"]["simulation"] == simulation.pk
    events = sent["data"]["events"]
    assert [(e["kind"], e["payload"]) for e in events] == [(KETTLE, {"n": 0}), (KETTLE, {"n": 2})]
    assert events[1]["seq"] == events[0]["seq"] + 2
    hook.refresh_from_db()
    assert hook.log_seq == Simulation.objects.get(pk=simulation.pk).last_seq

    _append(simulation, KETTLE)
    assert log_events_collect() == 1
    assert [e["payload"] for e in _sent()[1]["data"]["events"]] == [{"n": 0}]


def test_a_long_log_is_sent_in_deliveries_of_at_most_the_limit(
    user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(logfeed, "SENT_MAX", 2)
    simulation = simulation_of(user, N3, seed=3, cognition="minimal")
    webhook_create(
        user=user,
        url="http://127.0.0.1:9/hook",
        events=["simulation.events"],
        log_kinds=[KETTLE],
        simulation_id=simulation.pk,
    )
    _append(simulation, *[KETTLE] * 5)
    while log_events_collect():
        pass
    batches = [[e["payload"]["n"] for e in d["data"]["events"]] for d in _sent()]
    assert batches == [[0, 1], [2, 3], [4]]


def test_a_disabled_webhook_reads_nothing(user: User) -> None:
    simulation = simulation_of(user, N3, seed=3, cognition="minimal")
    hook = webhook_create(
        user=user,
        url="http://127.0.0.1:9/hook",
        events=["simulation.events"],
        log_kinds=[KETTLE],
        simulation_id=simulation.pk,
    ).subscription
    webhook_update(user=user, subscription_id=hook.pk, changes={"active": False})
    _append(simulation, KETTLE)
    assert log_events_collect() == 0 and not WebhookDelivery.objects.exists()
