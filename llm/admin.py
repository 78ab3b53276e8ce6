"""The ledger in the admin: read-only, filterable by task, backend, model and error."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from django.contrib import admin
from django.db import models
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.html import format_html
from django.utils.safestring import SafeString

from .models import ModelCall, ModelProfile, ModelQuota, ModelRoute, ModelUsage


class HasErrorFilter(admin.SimpleListFilter):
    title = "outcome"
    parameter_name = "has_error"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("no", "succeeded"), ("yes", "failed")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        if self.value() == "yes":
            return queryset.exclude(error="")
        if self.value() == "no":
            return queryset.filter(error="")
        return queryset


def _pre(text: str) -> SafeString:
    return format_html('<pre style="white-space: pre-wrap; margin: 0">{}</pre>', text)


if TYPE_CHECKING:
    _ModelAdmin = admin.ModelAdmin[Any]
else:
    _ModelAdmin = admin.ModelAdmin  # generic only in the type stubs


class ReadOnlyAdmin(_ModelAdmin):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(ModelCall)
class ModelCallAdmin(ReadOnlyAdmin):
    list_display = [
        "id",
        "created_at",
        "simulation",
        "agent_name",
        "task",
        "priority",
        "backend",
        "model",
        "prompt_tokens",
        "completion_tokens",
        "cost",
        "latency_ms",
        "attempts",
        "succeeded",
        "fallback",
    ]
    list_filter = ["task", "priority", "backend", "model", "fallback", HasErrorFilter]
    search_fields = ["agent_name", "decider", "prompt", "raw_reply", "error"]
    list_select_related = ["simulation"]
    date_hierarchy = "created_at"
    fields = _DETAIL = (
        "simulation",
        "agent",
        "agent_name",
        "decider",
        "step",
        "sim_time",
        "task",
        "backend",
        "model",
        "profile",
        "cost",
        "prompt_text",
        "reply_text",
        "output_json",
        "prompt_tokens",
        "completion_tokens",
        "usage",
        "latency_ms",
        "attempts",
        "attempt_log_json",
        "error",
        "fallback",
        "created_at",
        "finished_at",
    )
    readonly_fields = _DETAIL

    @admin.display(boolean=True, description="ok")
    def succeeded(self, call: ModelCall) -> bool:
        return not call.error

    @admin.display(description="prompt")
    def prompt_text(self, call: ModelCall) -> SafeString:
        return _pre(call.prompt)

    @admin.display(description="raw reply")
    def reply_text(self, call: ModelCall) -> SafeString:
        return _pre(call.raw_reply)

    @admin.display(description="output")
    def output_json(self, call: ModelCall) -> SafeString:
        return _pre(json.dumps(call.output, indent=2))

    @admin.display(description="attempts, one by one")
    def attempt_log_json(self, call: ModelCall) -> SafeString:
        return _pre(json.dumps(call.attempt_log, indent=2))


@admin.register(ModelUsage)
class ModelUsageAdmin(ReadOnlyAdmin):
    list_display = ["simulation", "calls", "tokens", "cost", "budget_money"]
    readonly_fields = ["simulation", "calls", "tokens", "cost", "budget_money"]


@admin.register(ModelQuota)
class ModelQuotaAdmin(_ModelAdmin):
    """Per-user limits of model calls a day; staff set them (SMALLVILLE_USER_DAILY_CALLS
    applies to users without one)."""

    list_display = ["user", "calls_per_day", "money_per_day"]
    search_fields = ["user__username"]
    autocomplete_fields = ["user"]


@admin.register(ModelProfile)
class ModelProfileAdmin(_ModelAdmin):
    """Model profiles; the key is never here, only the name of the variable holding it."""

    list_display = ["name", "owner", "shared", "backend", "model", "base_url", "api_key_env"]
    list_filter = ["shared", "backend", "dialect"]
    search_fields = ["name", "model", "base_url", "owner__username"]
    autocomplete_fields = ["owner"]
    # Model servers on a private network are often plain http.
    formfield_overrides = {models.URLField: {"assume_scheme": "http"}}


@admin.register(ModelRoute)
class ModelRouteAdmin(_ModelAdmin):
    list_display = ["simulation", "group", "profile"]
    list_select_related = ["simulation", "profile"]
