"""The model server's slots, shared by every process that calls it.

`SMALLVILLE_LLM_SERVER_SLOTS` is how many requests the server takes at once. Several
Celery workers, each running simulations and their background calls, then keep that
many in flight between them, not that many each: a request waits in Redis for a slot,
and a freed slot goes to the waiting request of the lowest priority number (0: someone
waits on the call, 1: background work), the earliest on ties, whichever process it is
in. A slot is a lease: a process that dies holding one loses it after the call's
timeout. With Redis out of reach the call goes ahead without a slot (the per-process
`SMALLVILLE_LLM_CONCURRENCY` still holds): a shared limit is for throughput, never a
reason to fail a resident's step.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import redis
from django.conf import settings
from redis.exceptions import RedisError

log = logging.getLogger(__name__)

# KEYS: holders (token -> lease end, ms), waiting (token -> priority and arrival),
# seen (token -> last poll, ms). ARGV: token, now ms, lease ms, slots, rank score.
_ACQUIRE = """
local holders, waiting, seen = KEYS[1], KEYS[2], KEYS[3]
local token, now, lease, slots, score = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]),
    tonumber(ARGV[4]), ARGV[5]
redis.call('ZREMRANGEBYSCORE', holders, '-inf', now)
for _, gone in ipairs(redis.call('ZRANGEBYSCORE', seen, '-inf', now - 2000)) do
  redis.call('ZREM', waiting, gone)
  redis.call('ZREM', seen, gone)
end
redis.call('ZADD', waiting, 'NX', score, token)
redis.call('ZADD', seen, now, token)
local free = slots - redis.call('ZCARD', holders)
if free > 0 and redis.call('ZRANK', waiting, token) < free then
  redis.call('ZREM', waiting, token)
  redis.call('ZREM', seen, token)
  redis.call('ZADD', holders, now + lease, token)
  for _, key in ipairs(KEYS) do redis.call('PEXPIRE', key, lease + 60000) end
  return 1
end
return 0
"""

_POLL = (0.002, 0.01)  # seconds between a waiting request's tries: first, at most
_client: Any = None
_acquire: Any = None  # the script, registered: each try sends its hash, not its text


def _redis() -> Any:
    global _client
    if _client is None:
        url = str(settings.CACHES["default"]["LOCATION"])
        _client = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
    return _client


def _acquire_script() -> Any:
    global _acquire
    client = _redis()
    if _acquire is None or _acquire.registered_client is not client:
        _acquire = client.register_script(_ACQUIRE)
    return _acquire


def _keys(server: str) -> list[str]:
    return [f"smallville:llm-slots:{server}:{part}" for part in ("holders", "waiting", "seen")]


@contextmanager
def server_slot(server: str, *, slots: int, priority: int, lease: float) -> Iterator[None]:
    """Hold one of `server`'s `slots` while the block runs (the request to it); wait for
    one in priority order. `lease`: seconds after which a slot whose holder never gave it
    back is free again (the request's timeout, with a margin)."""
    keys = _keys(server)
    token = uuid.uuid4().hex
    # Lower priority numbers first; within one, the earliest to arrive.
    score = f"{priority * 10**13 + int(time.time() * 1000)}"
    pause = _POLL[0]
    held = False
    try:
        acquire = _acquire_script()
        while True:
            now = int(time.time() * 1000)
            if acquire(keys=keys, args=[token, now, int(lease * 1000), slots, score]):
                held = True
                break
            time.sleep(pause)
            pause = min(pause * 2, _POLL[1])
    except (RedisError, OSError) as exc:
        log.warning("model server slots unavailable, calling without one: %s", exc)
        _forget(keys, token)
    try:
        yield
    finally:
        if held:
            _forget(keys, token)


def _forget(keys: list[str], token: str) -> None:
    try:
        pipe = _redis().pipeline()
        for key in keys:
            pipe.zrem(key, token)
        pipe.execute()
    except (RedisError, OSError):
        pass  # the lease (or the 2 s a waiter may go unseen) frees it


def server_slots_held(server: str) -> int:
    """Slots of `server` held now, across every process (for the admin and tests)."""
    holders = _keys(server)[0]
    client = _redis()
    client.zremrangebyscore(holders, "-inf", int(time.time() * 1000))
    return int(client.zcard(holders))
