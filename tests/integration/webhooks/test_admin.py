"""Webhooks in the admin: staff see subscriptions (never their secrets) and every delivery
with its status, attempts and response code; others are sent to the login page."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from integration.webhooks.models import WebhookEvent
from integration.webhooks.services import webhook_create, webhooks_notify
from tests.factories import simulation_of


def test_staff_see_webhooks_and_their_deliveries(staff: Client, user: User, settings: Any) -> None:
    settings.SMALLVILLE_WEBHOOKS_ALLOW_PRIVATE = True
    made = webhook_create(user=user, url="http://127.0.0.1:9/hook", events=["evaluation.done"])
    simulation = simulation_of(user)
    [delivery] = webhooks_notify(
        user_id=user.pk,
        simulation_id=simulation.pk,
        event=WebhookEvent.EVALUATION_DONE,
        data={"evaluation": {"id": 1}},
    )
    hooks = staff.get(reverse("admin:integration_webhooksubscription_changelist"))
    assert hooks.status_code == 200 and b"127.0.0.1:9/hook" in hooks.content
    hook = staff.get(
        reverse("admin:integration_webhooksubscription_change", args=[made.subscription.pk])
    )
    assert hook.status_code == 200 and made.secret.encode() not in hook.content
    log = staff.get(reverse("admin:integration_webhookdelivery_changelist") + "?status=pending")
    assert log.status_code == 200 and str(delivery.pk).encode() in log.content
    one = staff.get(reverse("admin:integration_webhookdelivery_change", args=[delivery.pk]))
    assert one.status_code == 200 and b"evaluation.done" in one.content


def test_others_are_sent_to_the_login_page(user: User) -> None:
    client = Client()
    client.force_login(user)
    page = client.get(reverse("admin:integration_webhookdelivery_changelist"))
    assert page.status_code == 302 and "/login/" in page["Location"]
