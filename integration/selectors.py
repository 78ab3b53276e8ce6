"""Reading a user's API tokens."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db.models import QuerySet
from rest_framework.authtoken.models import Token

from integration.models import ApiToken


def api_tokens_of(*, user: User) -> QuerySet[ApiToken]:
    """The user's tokens, live and revoked, newest first."""
    return ApiToken.objects.filter(user=user)


def legacy_token_of(*, user: User) -> Token | None:
    """The user's one token of DRF's authtoken (`manage.py drf_create_token`, the admin),
    which authenticates beside theirs; None if they have none."""
    return Token.objects.filter(user=user).first()
