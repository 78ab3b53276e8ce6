"""Writes of webhooks: subscriptions (made, changed, deleted by their user) and the
deliveries an event makes, sent on commit."""

from __future__ import annotations

import json
import logging
import re
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from world.models import Simulation

from .addresses import UrlRefused, url_check
from .models import (
    NAME_MAX,
    URL_MAX,
    DeliveryStatus,
    WebhookDelivery,
    WebhookEvent,
    WebhookSubscription,
)
from .signing import secret_new

log = logging.getLogger(__name__)

LIVE_MAX = 20  # subscriptions per user
KINDS_MAX = 50
_KIND = re.compile(r"^[a-z][a-z_]*(\.[a-z][a-z_]*)+$")


class WebhookRefused(ValueError):
    """A subscription request that cannot be served; `field` names the field at fault."""

    def __init__(self, message: str, *, field: str) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class MadeWebhook:
    subscription: WebhookSubscription
    secret: str  # shown once, when it is made


def webhook_create(
    *,
    user: User,
    url: str,
    events: Sequence[str],
    log_kinds: Sequence[str] = (),
    simulation_id: int | None = None,
    name: str = "",
) -> MadeWebhook:
    fields = _checked(
        user=user,
        url=url,
        events=events,
        log_kinds=log_kinds,
        simulation_id=simulation_id,
        name=name,
    )
    with transaction.atomic():
        mine = WebhookSubscription.objects.select_for_update().filter(user=user)
        if mine.count() >= LIVE_MAX:
            raise WebhookRefused(f"at most {LIVE_MAX} webhooks: delete one first", field="url")
        secret = secret_new()
        subscription = WebhookSubscription.objects.create(
            user=user, secret=secret, log_seq=_log_start(fields), **fields
        )
    return MadeWebhook(subscription=subscription, secret=secret)


def webhook_update(
    *, user: User, subscription_id: int, changes: Mapping[str, Any]
) -> WebhookSubscription:
    """Change the user's subscription (DoesNotExist when it is not theirs). Setting
    `active` to true again clears the reason it was disabled and its count of failures."""
    subscription = WebhookSubscription.objects.get(pk=subscription_id, user=user)
    current = {
        "url": subscription.url,
        "events": subscription.events,
        "log_kinds": subscription.log_kinds,
        "simulation_id": subscription.simulation_id,
        "name": subscription.name,
    }
    given = {key: value for key, value in changes.items() if key in current}
    fields = _checked(user=user, **{**current, **given})
    # Only the fields changed here: the sweep moves log_seq and failures meanwhile.
    written = ["url", "events", "log_kinds", "simulation", "name", "updated_at"]
    if (fields["simulation_id"], fields["log_kinds"]) != (
        subscription.simulation_id,
        subscription.log_kinds,
    ):
        subscription.log_seq = _log_start(fields)  # log events from now on
        written.append("log_seq")
    for key, value in fields.items():
        setattr(subscription, key, value)
    if "active" in changes:
        subscription.active = bool(changes["active"])
        written.append("active")
        if subscription.active:
            subscription.failures, subscription.disabled_reason = 0, ""
            written += ["failures", "disabled_reason"]
    subscription.save(update_fields=written)
    return subscription


def webhook_delete(*, user: User, subscription_id: int) -> None:
    deleted, _ = WebhookSubscription.objects.filter(pk=subscription_id, user=user).delete()
    if not deleted:
        raise WebhookSubscription.DoesNotExist


def _log_start(fields: Mapping[str, Any]) -> int:
    """Log events are sent from those appended after the subscription asks for them."""
    if not fields["log_kinds"]:
        return 0
    return int(
        Simulation.objects.values_list("last_seq", flat=True).get(pk=fields["simulation_id"])
    )


def _checked(
    *,
    user: User,
    url: str,
    events: Sequence[str],
    log_kinds: Sequence[str],
    simulation_id: int | None,
    name: str,
) -> dict[str, Any]:
    """The subscription's fields, or WebhookRefused naming the first field at fault."""
    url = url.strip()
    if not url or len(url) > URL_MAX:
        raise WebhookRefused(f"a URL of 1-{URL_MAX} characters", field="url")
    try:
        url_check(url)
    except UrlRefused as refused:
        raise WebhookRefused(str(refused), field="url") from None
    known = set(WebhookEvent.values)
    if not events or any(event not in known for event in events):
        raise WebhookRefused(f"one or more of {', '.join(sorted(known))}", field="events")
    kinds = sorted(set(log_kinds))
    if len(kinds) > KINDS_MAX or any(not _KIND.match(kind) or len(kind) > 64 for kind in kinds):
        raise WebhookRefused(
            f"at most {KINDS_MAX} event kinds such as conversation.held", field="log_kinds"
        )
    if bool(kinds) != (WebhookEvent.SIMULATION_EVENTS in events):
        raise WebhookRefused(
            "log_kinds are sent with simulation.events: give both or neither", field="log_kinds"
        )
    if (
        simulation_id is not None
        and not Simulation.objects.filter(pk=simulation_id, owner=user).exists()
    ):
        raise WebhookRefused("no such simulation of yours", field="simulation")
    if kinds and simulation_id is None:
        raise WebhookRefused("simulation.events needs the simulation", field="simulation")
    name = name.strip()
    if len(name) > NAME_MAX or not name.isprintable():
        raise WebhookRefused(f"at most {NAME_MAX} printable characters", field="name")
    return {
        "url": url,
        "events": sorted(set(events)),
        "log_kinds": kinds,
        "simulation_id": simulation_id,
        "name": name,
    }


def webhooks_notify(
    *,
    user_id: int,
    simulation_id: int,
    event: WebhookEvent,
    data: Mapping[str, Any],
    subscriptions: Sequence[WebhookSubscription] | None = None,
) -> list[WebhookDelivery]:
    """A delivery of `event` for each active subscription of the user that asks for it
    (all of the user's simulations, or this one), written in the caller's transaction and
    sent once it commits: an event is delivered at least once if its cause commits."""
    if subscriptions is None:
        subscriptions = list(
            WebhookSubscription.objects.filter(
                Q(simulation__isnull=True) | Q(simulation_id=simulation_id),
                user_id=user_id,
                active=True,
                events__contains=[event.value],
            )
        )
    if not subscriptions:
        return []
    now = timezone.now()
    deliveries = [
        WebhookDelivery(
            id=(delivery_id := uuid.uuid4()),
            subscription=subscription,
            event=event,
            body=_body(delivery_id, event, now, data),
            next_attempt_at=now,
            queued_at=now,
        )
        for subscription in subscriptions
    ]
    WebhookDelivery.objects.bulk_create(deliveries)
    ids = [str(d.id) for d in deliveries]
    transaction.on_commit(lambda: deliveries_send(ids), robust=True)
    return deliveries


def _body(delivery_id: uuid.UUID, event: str, now: datetime, data: Mapping[str, Any]) -> str:
    envelope = {"id": str(delivery_id), "event": event, "created_at": now.isoformat()}
    return json.dumps({**envelope, "data": data}, separators=(",", ":"), default=str)


def deliveries_send(ids: Sequence[str], *, countdown: float = 0) -> None:
    """Hand the deliveries to the webhook task; a broker that cannot take them leaves them
    to the sweep (delivery.deliveries_resend_due)."""
    from .tasks import webhook_deliver, webhook_queue  # the task module imports this one

    for delivery_id in ids:
        try:
            webhook_deliver.apply_async((delivery_id,), countdown=countdown, queue=webhook_queue())
        except Exception as exc:  # the sweep sends it later
            log.warning("webhook delivery %s not queued: %r", delivery_id, exc)


def deliveries_abandon(*, subscription: WebhookSubscription, reason: str) -> int:
    return WebhookDelivery.objects.filter(
        subscription=subscription, status=DeliveryStatus.PENDING
    ).update(status=DeliveryStatus.FAILED, error=reason, finished_at=timezone.now())
