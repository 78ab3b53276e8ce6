"""Throttles of the expensive endpoints (model calls, runs): per user and scope, counted in
the shared cache (Redis), so every web process sees the same counts."""

from __future__ import annotations

import logging

from redis.exceptions import RedisError
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle
from rest_framework.views import APIView

log = logging.getLogger(__name__)


class ScopedThrottle(SimpleRateThrottle):
    """`scope`'s rate from REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], read per request (DRF's
    own throttles read it once at import, so settings changed later would not apply)."""

    scope = ""

    def get_rate(self) -> str | None:
        rate = api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)
        return str(rate) if rate else None

    def get_cache_key(self, request: Request, view: APIView) -> str:
        ident = request.user.pk if request.user.is_authenticated else self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}

    def allow_request(self, request: Request, view: APIView) -> bool:
        try:
            return super().allow_request(request, view)
        except (RedisError, OSError):  # the cache is down: serve rather than fail
            log.exception("throttle cache unavailable; request allowed")
            return True


class RunThrottle(ScopedThrottle):
    scope = "run"


class InterviewThrottle(ScopedThrottle):
    scope = "interview"


class WhisperThrottle(ScopedThrottle):
    scope = "whisper"


class SayThrottle(ScopedThrottle):
    scope = "say"
