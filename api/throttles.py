"""Throttles of the expensive endpoints (model calls, runs, creating and forking a
simulation): per user and scope, a sliding window counted atomically in the shared cache
(kernel.rates), so simultaneous requests in every web process never pass the
rate. With the cache down a throttled endpoint answers 503 `cache_unavailable`
(Retry-After): it cannot count, and must not serve uncounted; while the cache is known to
be down it answers so at once."""

from __future__ import annotations

import logging

from redis.exceptions import RedisError
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle
from rest_framework.views import APIView

from kernel.rates import Rate, rate_take

from .errors import CacheUnavailable

log = logging.getLogger(__name__)


class ScopedThrottle(SimpleRateThrottle):
    """`scope`'s rate from REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], read per request (DRF's
    own throttles read it once at import, so settings changed later would not apply).

    Not DRF's counting, which reads the history, decides, then writes it back: requests
    that read it together all pass (20 simultaneous creates under 10/minute passed 11-14)."""

    scope = ""
    waiting: float | None = None

    def get_rate(self) -> str | None:
        rate = api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)
        return str(rate) if rate else None

    def get_cache_key(self, request: Request, view: APIView) -> str:
        ident = request.user.pk if request.user.is_authenticated else self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}

    def allow_request(self, request: Request, view: APIView) -> bool:
        if self.rate is None:
            return True
        key = self.get_cache_key(request, view)
        count, seconds = self.parse_rate(self.rate)
        try:
            self.waiting = rate_take(key, Rate(count or 0, seconds or 1))
        except (RedisError, OSError) as exc:  # the cache is down (or hung)
            log.warning("throttle cache unavailable: %r", exc)
            raise CacheUnavailable() from exc
        return self.waiting is None

    def wait(self) -> float | None:
        return self.waiting


class RunThrottle(ScopedThrottle):
    scope = "run"


class InterviewThrottle(ScopedThrottle):
    scope = "interview"


class WhisperThrottle(ScopedThrottle):
    scope = "whisper"


class SayThrottle(ScopedThrottle):
    scope = "say"


class CreateThrottle(ScopedThrottle):
    """Creating a simulation seeds its residents' memories (model calls: ~250 for n25)."""

    scope = "create"


class ForkThrottle(ScopedThrottle):
    scope = "fork"
