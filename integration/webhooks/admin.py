"""Webhooks in the admin: subscriptions (never their secrets) and every delivery with its
status, attempts and the receiver's answer."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from integration.webhooks.models import WebhookDelivery, WebhookSubscription
from world.admin import ModelAdmin


@admin.register(WebhookSubscription)
class WebhookSubscriptionAdmin(ModelAdmin[WebhookSubscription]):
    """Made by their users; staff can disable or enable one. The secret is never shown."""

    list_display = ("__str__", "user", "url", "active", "failures", "created_at")
    list_filter = ("active",)
    search_fields = ("name", "url", "user__username")
    readonly_fields = (
        "user",
        "name",
        "url",
        "events",
        "log_kinds",
        "simulation",
        "failures",
        "created_at",
        "updated_at",
    )
    fields = (*readonly_fields, "active", "disabled_reason")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(ModelAdmin[WebhookDelivery]):
    """The delivery log: read-only."""

    list_display = (
        "id",
        "subscription",
        "event",
        "status",
        "attempts",
        "response_code",
        "created_at",
        "finished_at",
    )
    list_filter = ("status", "event")
    search_fields = ("id", "subscription__url", "subscription__user__username")
    readonly_fields = (
        "id",
        "subscription",
        "event",
        "status",
        "attempts",
        "response_code",
        "error",
        "next_attempt_at",
        "queued_at",
        "claimed_at",
        "created_at",
        "finished_at",
        "body",
    )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False
