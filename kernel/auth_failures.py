"""Failed authentications per client (its address, REMOTE_ADDR: a header such as
X-Forwarded-For is the client's to forge): past SMALLVILLE_THROTTLE_AUTH_FAILURES in the
window, its logins are refused with 429 and Retry-After until its oldest failure leaves
the window (the right password too, or guessing would go on), and its wrong tokens get
429 instead of 401 (api.authentication). Counted in the shared cache
(kernel.rates); with the cache down nothing is counted and attempts are
checked as usual (a login must not depend on the cache)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from redis.exceptions import RedisError

from .rates import rate_add, rate_parse, rate_wait

log = logging.getLogger(__name__)


def _key(meta: Mapping[str, Any]) -> str:
    return f"auth-failures:{meta.get('REMOTE_ADDR', '')}"


def auth_wait(meta: Mapping[str, Any]) -> float | None:
    """Seconds the client of a request (its META) must wait before trying again, or None."""
    try:
        return rate_wait(_key(meta), rate_parse(settings.SMALLVILLE_THROTTLE_AUTH_FAILURES))
    except (RedisError, OSError) as exc:
        log.warning("failed authentications not counted (cache unavailable): %r", exc)
        return None


def auth_failed(meta: Mapping[str, Any]) -> None:
    """Count a failed authentication of the client of a request."""
    try:
        rate_add(_key(meta), rate_parse(settings.SMALLVILLE_THROTTLE_AUTH_FAILURES))
    except (RedisError, OSError) as exc:
        log.warning("failed authentication not counted (cache unavailable): %r", exc)
