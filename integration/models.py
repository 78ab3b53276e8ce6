"""API tokens a user makes, names, lists and revokes. Only a hash of each key is stored:
the key is shown once, when it is made."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

NAME_MAX = 100


class ApiToken(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=NAME_MAX)
    prefix = models.CharField(
        max_length=12, help_text="The key's first characters, to tell keys apart."
    )
    key_hash = models.CharField(max_length=64, unique=True, help_text="SHA-256 of the key.")
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            # One live token of a name per user; a revoked one frees its name.
            models.UniqueConstraint(
                fields=["user", "name"],
                condition=Q(revoked_at__isnull=True),
                name="api_token_live_name_unique",
            )
        ]

    def __str__(self) -> str:
        state = "revoked" if self.revoked_at else "live"
        return f"{self.name} ({self.prefix}…, {state})"


# Webhooks keep their models in their own module; Django finds them through this one.
from integration.webhooks.models import (  # noqa: E402
    WebhookDelivery,
    WebhookSubscription,
)

__all__ = ["ApiToken", "WebhookDelivery", "WebhookSubscription"]
