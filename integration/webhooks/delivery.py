"""One attempt of a delivery: claimed by conditional update, POSTed signed, its answer
logged; a failure waits its backoff, a delivery out of time fails for good, and a
subscription whose deliveries keep failing is disabled with the reason."""

from __future__ import annotations

import logging
import urllib.error
import urllib.request
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from kernel.metrics import WEBHOOK_DELIVERIES

from .addresses import UrlRefused, url_check
from .models import DeliveryStatus, WebhookDelivery, WebhookSubscription
from .services import deliveries_abandon, deliveries_send
from .signing import signed_headers

log = logging.getLogger(__name__)

RESEND_AFTER = timedelta(seconds=60)  # a queued task not run by then is sent again
ERROR_MAX = 500


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect is an answer, not an order: following it could reach a refused address."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}), _NoRedirects())


def retry_delay(attempts: int) -> float:
    """Seconds before the attempt after `attempts` failed ones: doubling, capped."""
    base = settings.SMALLVILLE_WEBHOOKS_BACKOFF
    return float(min(settings.SMALLVILLE_WEBHOOKS_BACKOFF_MAX, base * 2 ** (attempts - 1)))


def delivery_attempt(*, delivery_id: str) -> str | None:
    """Make the delivery's next attempt if it is due and nobody else is making it; the
    delivery's status after it, or None when there was nothing to do."""
    now = timezone.now()
    claimed = WebhookDelivery.objects.filter(
        pk=delivery_id, status=DeliveryStatus.PENDING, next_attempt_at__lte=now
    ).update(status=DeliveryStatus.SENDING, attempts=F("attempts") + 1, claimed_at=now)
    if not claimed:
        return None
    status = _attempt(delivery_id)
    outcome = "retried" if status == DeliveryStatus.PENDING else str(status)
    WEBHOOK_DELIVERIES.labels(outcome=outcome).inc()
    return status


def _attempt(delivery_id: str) -> str:
    delivery = WebhookDelivery.objects.select_related("subscription").get(pk=delivery_id)
    subscription = delivery.subscription
    if not subscription.active:
        _finish(delivery, DeliveryStatus.FAILED, error="the webhook is disabled")
        return DeliveryStatus.FAILED
    code, error = _post(delivery, subscription)
    if code is not None and 200 <= code < 300:
        _finish(delivery, DeliveryStatus.SUCCEEDED, code=code)
        WebhookSubscription.objects.filter(pk=subscription.pk).update(failures=0)
        return DeliveryStatus.SUCCEEDED
    return _failed(delivery, subscription, code, error)


def _post(delivery: WebhookDelivery, subscription: WebhookSubscription) -> tuple[int | None, str]:
    """The answer's status code (None when there was none) and what went wrong."""
    try:
        url_check(subscription.url)  # again: a name may resolve elsewhere by now
    except UrlRefused as refused:
        return None, f"refused: {refused}"
    body = delivery.body.encode()
    headers = signed_headers(
        secret=subscription.secret, delivery_id=str(delivery.id), event=delivery.event, body=body
    )
    request = urllib.request.Request(subscription.url, data=body, headers=headers, method="POST")
    try:
        with _opener.open(request, timeout=settings.SMALLVILLE_WEBHOOKS_TIMEOUT) as answer:
            return int(answer.status), ""
    except urllib.error.HTTPError as answer:
        text = answer.read(200).decode(errors="replace")
        return int(answer.code), f"HTTP {answer.code}: {text}"
    except (OSError, ValueError) as exc:  # refused, reset, timed out, bad answer
        return None, f"{type(exc).__name__}: {exc}"


def _failed(
    delivery: WebhookDelivery,
    subscription: WebhookSubscription,
    code: int | None,
    error: str,
) -> str:
    now = timezone.now()
    delay = retry_delay(delivery.attempts)
    deadline = delivery.created_at + timedelta(seconds=settings.SMALLVILLE_WEBHOOKS_RETRY_FOR)
    if now + timedelta(seconds=delay) <= deadline:
        due = now + timedelta(seconds=delay)
        # A short wait is a countdown on the queue; a long one is left to the sweep.
        queued = due if delay <= RESEND_AFTER.total_seconds() else None
        WebhookDelivery.objects.filter(pk=delivery.pk, status=DeliveryStatus.SENDING).update(
            status=DeliveryStatus.PENDING,
            response_code=code,
            error=error[:ERROR_MAX],
            next_attempt_at=due,
            queued_at=queued,
        )
        if queued is not None:
            deliveries_send([str(delivery.pk)], countdown=delay)
        return DeliveryStatus.PENDING
    _finish(delivery, DeliveryStatus.FAILED, code=code, error=f"gave up: {error}")
    _count_failure(subscription, error)
    return DeliveryStatus.FAILED


def _finish(
    delivery: WebhookDelivery, status: DeliveryStatus, *, code: int | None = None, error: str = ""
) -> None:
    WebhookDelivery.objects.filter(pk=delivery.pk, status=DeliveryStatus.SENDING).update(
        status=status, response_code=code, error=error[:ERROR_MAX], finished_at=timezone.now()
    )


def _count_failure(subscription: WebhookSubscription, error: str) -> None:
    """One more delivery failed for good; past SMALLVILLE_WEBHOOKS_DISABLE_AFTER in a row
    the subscription is disabled, and its waiting deliveries with it."""
    limit = settings.SMALLVILLE_WEBHOOKS_DISABLE_AFTER
    with transaction.atomic():
        WebhookSubscription.objects.filter(pk=subscription.pk).update(failures=F("failures") + 1)
        reason = f"{limit} deliveries in a row failed; the last: {error}"[:ERROR_MAX]
        disabled = WebhookSubscription.objects.filter(
            pk=subscription.pk, active=True, failures__gte=limit
        ).update(active=False, disabled_reason=reason)
        if disabled:
            log.warning("webhook %s disabled: %s", subscription.pk, reason)
            deliveries_abandon(subscription=subscription, reason="the webhook was disabled")


def deliveries_resend_due() -> int:
    """The sweep (every worker's watchdog): deliveries due whose task is not on its way
    (a long backoff, a lost message, a worker that died mid-attempt) are sent again."""
    now = timezone.now()
    lapsed = now - RESEND_AFTER - timedelta(seconds=settings.SMALLVILLE_WEBHOOKS_TIMEOUT)
    WebhookDelivery.objects.filter(status=DeliveryStatus.SENDING, claimed_at__lt=lapsed).update(
        status=DeliveryStatus.PENDING, queued_at=None
    )
    due = WebhookDelivery.objects.filter(
        Q(queued_at__isnull=True) | Q(queued_at__lt=now - RESEND_AFTER),
        status=DeliveryStatus.PENDING,
        next_attempt_at__lte=now,
    )
    ids = [str(pk) for pk in due.values_list("pk", flat=True)[:500]]
    if ids:
        WebhookDelivery.objects.filter(pk__in=ids).update(queued_at=now)
        deliveries_send(ids)
    return len(ids)
