from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from integration.models import ApiToken
from world.admin import ModelAdmin


@admin.register(ApiToken)
class ApiTokenAdmin(ModelAdmin[ApiToken]):
    """Tokens are made by their users; staff see them and can revoke one (the key itself is
    never stored, so never shown)."""

    list_display = ("name", "user", "prefix", "created_at", "last_used_at", "revoked_at")
    list_filter = ("revoked_at",)
    search_fields = ("name", "user__username", "prefix")
    readonly_fields = ("user", "name", "prefix", "key_hash", "created_at", "last_used_at")
    fields = (*readonly_fields, "revoked_at")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


# Webhooks register their own admin screens.
from integration.webhooks import admin as webhooks_admin  # noqa: E402, F401
