"""Rates counted atomically in the shared cache (Redis): a sliding window per key, checked
and counted in one Lua script, so that simultaneous requests in any web process never
count past the rate (the API's throttles, failed logins and wrong tokens per client).

The cache is reached through Django's cache (its URL, key prefix and timeouts), behind
`cache_breaker`: while the cache is known to be down, every count fails at once with
`CacheDown` (a RedisError, so it maps to the same 503 as a real one), and one request per
SMALLVILLE_REPROBE_SECONDS pings it with a short timeout before counting.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any, Literal, cast

import redis
from django.conf import settings
from django.core.cache import cache
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError

from .breaker import cache_breaker

# KEYS[1]: a sorted set of the window's hits (member -> ms). ARGV: limit, window ms, a new
# member, mode: "take" (count it if under the limit), "peek" (count nothing), "add" (count
# it anyway). Returns {1 if under the limit before this hit, ms until a hit leaves}.
# The time is the server's (TIME), the same for every web process.
_WINDOW = """
local key, limit, window, member, mode = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]),
    ARGV[3], ARGV[4]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local under = redis.call('ZCARD', key) < limit
if mode == 'add' or (mode == 'take' and under) then
  redis.call('ZADD', key, now, member)
  redis.call('PEXPIRE', key, window)
end
if under then return {1, 0} end
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
return {0, tonumber(oldest[2]) + window - now}
"""
PROBE_TIMEOUT = 0.5  # seconds a probe of a cache known to be down may take

Mode = Literal["take", "peek", "add"]


class CacheDown(RedisConnectionError):
    """The cache is known to be down (its breaker is open): not asked."""


@dataclass(frozen=True)
class Rate:
    count: int
    seconds: float


_script: Any = None  # registered once: each call sends its hash (EVALSHA), not its text


def _probe() -> None:
    """A PING with a short timeout, on a connection to the cache of its own."""
    url = str(settings.CACHES["default"]["LOCATION"])
    quick = redis.Redis.from_url(
        url, socket_timeout=PROBE_TIMEOUT, socket_connect_timeout=PROBE_TIMEOUT
    )
    try:
        quick.ping()
    finally:
        quick.close()


def _window(key: str, rate: Rate, mode: Mode) -> float | None:
    """None when `key` is under `rate` (before this hit); else seconds until it is."""
    global _script
    if not cache_breaker.admit():
        raise CacheDown("the cache (Redis) is known to be down")
    shared = cast(Any, cache)
    full_key = shared.make_and_validate_key(f"rate:{key}")
    try:
        if cache_breaker.is_open:
            _probe()
        client = shared._cache.get_client(full_key, write=True)
        if _script is None:
            _script = client.register_script(_WINDOW)
        under, wait_ms = _script(
            keys=[full_key],
            args=[rate.count, int(rate.seconds * 1000), uuid.uuid4().hex, mode],
            client=client,
        )
    except (RedisError, OSError):
        cache_breaker.failed()
        raise
    cache_breaker.succeeded()
    return None if under else max(0.001, int(wait_ms) / 1000)


def rate_take(key: str, rate: Rate) -> float | None:
    """Count a hit of `key` if it is under `rate`: None; else seconds to wait (not counted)."""
    return _window(key, rate, "take")


def rate_wait(key: str, rate: Rate) -> float | None:
    """Seconds until `key` is under `rate` again, None when it is; counts nothing."""
    return _window(key, rate, "peek")


def rate_add(key: str, rate: Rate) -> None:
    """Count a hit of `key` whatever its count (failures: each one extends the wait)."""
    _window(key, rate, "add")


def rate_parse(rate: str) -> Rate:
    """ "10/minute" (DRF's form: s, m, h, d, or the words) as a Rate."""
    count, _, period = rate.partition("/")
    seconds = {"s": 1, "m": 60, "h": 3600, "d": 86400}[period.strip()[:1]]
    return Rate(int(count), seconds)
