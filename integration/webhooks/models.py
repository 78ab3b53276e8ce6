"""Webhook subscriptions and their deliveries (the log of every send and its answer)."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q

from world.models import Simulation

URL_MAX = 2000
NAME_MAX = 100


class WebhookEvent(models.TextChoices):
    """What a subscription may ask for; `simulation.events` carries log events of the
    subscription's `log_kinds` (of its one simulation)."""

    RUN_FINISHED = "run.finished"
    RUN_FAILED = "run.failed"
    RUN_BUDGET_EXHAUSTED = "run.budget_exhausted"
    EVALUATION_DONE = "evaluation.done"
    EVALUATION_FAILED = "evaluation.failed"
    SIMULATION_EVENTS = "simulation.events"


class WebhookSubscription(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="webhooks"
    )
    name = models.CharField(max_length=NAME_MAX, blank=True, default="")
    url = models.URLField(max_length=URL_MAX)
    secret = models.CharField(max_length=80, help_text="Signs each delivery; shown once.")
    events = models.JSONField(default=list, help_text="WebhookEvent values")
    log_kinds = models.JSONField(
        default=list, blank=True, help_text="log event kinds sent as simulation.events"
    )
    simulation = models.ForeignKey(
        Simulation,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="webhooks",
        help_text="only this simulation's; empty: every simulation of the user",
    )
    log_seq = models.BigIntegerField(
        default=0, help_text="simulation.events: the seq of the last log event read"
    )
    active = models.BooleanField(default=True)
    disabled_reason = models.TextField(blank=True, default="")
    failures = models.PositiveIntegerField(
        default=0, help_text="failed attempts in a row, across deliveries"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["user", "active"], name="webhook_user_active")]

    def __str__(self) -> str:
        state = "active" if self.active else "disabled"
        return f"{self.name or self.url} ({state})"


class DeliveryStatus(models.TextChoices):
    PENDING = "pending"  # waiting for its next attempt
    SENDING = "sending"  # an attempt is in flight
    SUCCEEDED = "succeeded"
    FAILED = "failed"  # given up: out of time, or its subscription was disabled


class WebhookDelivery(models.Model):
    """One event for one subscription. Its id is the idempotency key a receiver sees in
    every attempt; its body is fixed when it is made, so each attempt sends the same bytes."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    subscription = models.ForeignKey(
        WebhookSubscription, on_delete=models.CASCADE, related_name="deliveries"
    )
    event = models.CharField(max_length=40, choices=WebhookEvent.choices)
    body = models.TextField(help_text="the JSON sent, the same bytes every attempt")
    status = models.CharField(
        max_length=16, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING
    )
    attempts = models.PositiveIntegerField(default=0)
    response_code = models.PositiveIntegerField(null=True, blank=True)
    error = models.TextField(blank=True, default="")
    next_attempt_at = models.DateTimeField()
    queued_at = models.DateTimeField(null=True, blank=True, help_text="its task due then")
    claimed_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(
                fields=["next_attempt_at"],
                name="webhook_delivery_due",
                condition=Q(status__in=["pending", "sending"]),
            )
        ]
        verbose_name_plural = "webhook deliveries"

    def __str__(self) -> str:
        return f"{self.event} to {self.subscription_id}: {self.status}"
