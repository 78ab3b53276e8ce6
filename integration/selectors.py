"""Reading a user's API tokens."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db.models import QuerySet

from integration.models import ApiToken


def api_tokens_of(*, user: User) -> QuerySet[ApiToken]:
    """The user's tokens, live and revoked, newest first."""
    return ApiToken.objects.filter(user=user)
