"""Making, using and revoking API tokens."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.contrib.auth.models import AbstractBaseUser, User
from django.db import IntegrityError, transaction
from django.utils import timezone
from rest_framework.authtoken.models import Token

from integration.models import NAME_MAX, ApiToken

KEY_PREFIX = "sv_"  # tells a user's token from the legacy one-per-user token
LIVE_MAX = 50  # live tokens per user
USED_EVERY = timedelta(minutes=1)  # last_used_at is written at most this often


class TokenRefused(ValueError):
    """A token request that cannot be served; `field` names the request's field at fault."""

    def __init__(self, message: str, *, field: str) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class MadeToken:
    token: ApiToken
    key: str  # shown once: only its hash is stored


def key_hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def api_token_create(*, user: User, name: str) -> MadeToken:
    name = name.strip()
    if not name:
        raise TokenRefused("a token needs a name", field="name")
    if len(name) > NAME_MAX:
        raise TokenRefused(f"at most {NAME_MAX} characters", field="name")
    if not name.isprintable():
        raise TokenRefused("a name of printable characters", field="name")
    key = KEY_PREFIX + secrets.token_urlsafe(30)
    try:
        with transaction.atomic():
            live = ApiToken.objects.select_for_update().filter(user=user, revoked_at__isnull=True)
            if live.count() >= LIVE_MAX:
                raise TokenRefused(
                    f"at most {LIVE_MAX} live tokens: revoke one first", field="name"
                )
            token = ApiToken.objects.create(
                user=user, name=name, prefix=key[:10], key_hash=key_hash(key)
            )
    except IntegrityError:
        raise TokenRefused(f"you have a live token named {name!r}", field="name") from None
    return MadeToken(token=token, key=key)


def api_token_revoke(*, user: User, token_id: int) -> ApiToken:
    """Revoke the user's token (again: nothing changes); ApiToken.DoesNotExist for a token
    that is not theirs."""
    token = ApiToken.objects.get(pk=token_id, user=user)
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
    return token


def legacy_token_revoke(*, user: User) -> None:
    """Revoke the user's token of DRF's authtoken: deleted (it has no revoked state), so a
    request with its key gets 401. Nothing changes if they have none."""
    Token.objects.filter(user=user).delete()


def api_token_user(key: str) -> tuple[AbstractBaseUser, ApiToken] | None:
    """The active user of a live token with this key, noting its use; None otherwise."""
    if not key.startswith(KEY_PREFIX):
        return None
    token = (
        ApiToken.objects.select_related("user")
        .filter(key_hash=key_hash(key), revoked_at__isnull=True)
        .first()
    )
    if token is None or not token.user.is_active:
        return None
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at >= USED_EVERY:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token.user, token
