"""Reading a user's webhooks and their deliveries."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db.models import QuerySet

from .models import WebhookDelivery, WebhookSubscription


def webhooks_of(*, user: User) -> QuerySet[WebhookSubscription]:
    """The user's subscriptions, newest first."""
    return WebhookSubscription.objects.filter(user=user)


def webhook_deliveries_of(*, user: User, subscription_id: int) -> QuerySet[WebhookDelivery]:
    """The deliveries of the user's subscription, newest first (none if it is not theirs)."""
    return WebhookDelivery.objects.filter(
        subscription_id=subscription_id, subscription__user=user
    ).order_by("-created_at")
