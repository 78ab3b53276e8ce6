"""Log events for `simulation.events` webhooks, read off the engine's path: the sweep
(every worker's watchdog) reads each such webhook's simulation past its cursor and makes
one delivery of the events of its kinds, advancing the cursor in the same transaction."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from world.models import Event, Simulation

from .models import WebhookEvent, WebhookSubscription
from .services import webhooks_notify

READ_MAX = 5000  # log events read per webhook per sweep
SENT_MAX = 500  # of which at most this many in one delivery


def log_events_collect() -> int:
    """Deliveries made: one per webhook whose simulation logged events of its kinds."""
    ids = WebhookSubscription.objects.filter(
        active=True,
        simulation__isnull=False,
        events__contains=[WebhookEvent.SIMULATION_EVENTS.value],
    ).values_list("pk", flat=True)
    return sum(_collect(subscription_id) for subscription_id in ids)


def _collect(subscription_id: int) -> int:
    with transaction.atomic():
        subscription = (
            WebhookSubscription.objects.select_for_update(skip_locked=True)
            .filter(pk=subscription_id, active=True)
            .first()
        )
        if subscription is None or subscription.simulation_id is None:
            return 0  # another worker's sweep has it, or it changed
        simulation_id = subscription.simulation_id
        # Events up to the committed last_seq are all committed: the seq is reserved and
        # the events inserted in one transaction.
        last = Simulation.objects.values_list("last_seq", flat=True).get(pk=simulation_id)
        upto = min(last, subscription.log_seq + READ_MAX)
        if upto <= subscription.log_seq:
            return 0
        chosen = list(
            Event.objects.filter(
                simulation_id=simulation_id,
                seq__gt=subscription.log_seq,
                seq__lte=upto,
                kind__in=subscription.log_kinds,
            ).order_by("seq")[:SENT_MAX]
        )
        if len(chosen) == SENT_MAX:
            upto = chosen[-1].seq  # the rest in the next delivery
        WebhookSubscription.objects.filter(pk=subscription.pk).update(log_seq=upto)
        if not chosen:
            return 0
        webhooks_notify(
            user_id=subscription.user_id,
            simulation_id=simulation_id,
            event=WebhookEvent.SIMULATION_EVENTS,
            data={"simulation": simulation_id, "events": [_event(e) for e in chosen]},
            subscriptions=[subscription],
        )
        return 1


def _event(event: Event) -> dict[str, Any]:
    return {
        "seq": event.seq,
        "step": event.step,
        "sim_time": event.sim_time.isoformat(),
        "kind": event.kind,
        "agent": event.agent,
        "payload": event.payload,
    }
