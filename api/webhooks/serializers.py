"""Webhooks as the API shows them: never the secret, but once, when it is made; and
their deliveries."""

from __future__ import annotations

from rest_framework import serializers

from integration.webhooks.models import (
    NAME_MAX,
    URL_MAX,
    WebhookDelivery,
    WebhookEvent,
    WebhookSubscription,
)

from ..fields import StrictFieldsMixin, StrictIntegerField

_EVENTS_HELP = (
    "What to send: run.finished, run.failed, run.budget_exhausted (a run of the simulation "
    "stopped on its budget), evaluation.done, evaluation.failed, simulation.events (log "
    "events of the kinds in log_kinds)."
)


class WebhookSerializer(serializers.ModelSerializer[WebhookSubscription]):
    events = serializers.ListField(child=serializers.CharField(), help_text=_EVENTS_HELP)
    log_kinds = serializers.ListField(child=serializers.CharField())

    class Meta:
        model = WebhookSubscription
        fields = [
            "id",
            "name",
            "url",
            "events",
            "log_kinds",
            "simulation",
            "active",
            "disabled_reason",
            "failures",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields


class WebhookMadeSerializer(WebhookSerializer):
    secret = serializers.CharField(
        help_text="The signing secret, shown this once: verify each delivery's signature "
        "with it (docs/integration.md)."
    )

    class Meta(WebhookSerializer.Meta):
        fields = [*WebhookSerializer.Meta.fields, "secret"]
        read_only_fields = fields


class WebhookWriteSerializer(StrictFieldsMixin, serializers.Serializer[None]):
    url = serializers.CharField(max_length=URL_MAX, help_text="Where deliveries are POSTed.")
    events = serializers.ListField(
        child=serializers.ChoiceField(choices=WebhookEvent.choices),
        min_length=1,
        max_length=len(WebhookEvent.values),
        help_text=_EVENTS_HELP,
    )
    log_kinds = serializers.ListField(
        child=serializers.CharField(max_length=64),
        required=False,
        max_length=50,
        help_text="Log event kinds sent with simulation.events (e.g. conversation.held).",
    )
    simulation = StrictIntegerField(
        required=False,
        allow_null=True,
        help_text="Only this simulation of yours; empty or absent: all of them.",
    )
    name = serializers.CharField(
        max_length=NAME_MAX, required=False, allow_blank=True, help_text="What it is for."
    )
    active = serializers.BooleanField(
        required=False, help_text="false pauses it; true enables it again after a failure."
    )


class WebhookDeliverySerializer(serializers.ModelSerializer[WebhookDelivery]):
    class Meta:
        model = WebhookDelivery
        fields = [
            "id",
            "event",
            "status",
            "attempts",
            "response_code",
            "error",
            "next_attempt_at",
            "created_at",
            "finished_at",
        ]
        read_only_fields = fields
