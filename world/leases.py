"""Leases: a process holding a unit of work (or living at all) says so every few seconds
in the shared cache.

A lease lapses SMALLVILLE_LEASE_SECONDS after its holder's last renewal, so a watchdog
can tell a slow holder (its lease is live) from a dead one (it lapsed). One thread per
process renews every lease the process holds; holding a lease costs one cache write. A
cache that cannot be reached never fails the work: a lease it cannot record is only a
later resend, which finds the work done. The leases of named units of work are
runtime/leases.py's; the process lease (`process_holder`) marks the calls a process has in
flight in the ledger (llm/answers.py).
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import redis
from django.conf import settings
from django.core.cache import cache
from redis.backoff import NoBackoff
from redis.retry import Retry

log = logging.getLogger(__name__)

_held: Counter[str] = Counter()
_lock = threading.Lock()
_keeper: threading.Thread | None = None
_holder: tuple[int, str] | None = None  # (pid, this process's holder name)
_naming = threading.Lock()  # taken only to make the name


def _forget_after_fork() -> None:
    """A forked child (a Celery pool process) holds none of its parent's leases."""
    global _keeper, _holder, _lock, _naming
    _lock = threading.Lock()  # another thread of the parent may have held it
    _naming = threading.Lock()
    _held.clear()
    _keeper, _holder = None, None
    _workers_clients.clear()  # a Redis connection is not shared across a fork


os.register_at_fork(after_in_child=_forget_after_fork)


def _ttl() -> float:
    return float(settings.SMALLVILLE_LEASE_SECONDS)


def _renew(keys: list[str]) -> None:
    try:
        cache.set_many(dict.fromkeys(keys, 1), timeout=_ttl())
    except Exception as exc:  # the cache is down: the watchdog may resend, harmlessly
        log.warning("could not renew leases %s: %s", keys, exc)


def _keep() -> None:
    while True:
        time.sleep(_ttl() / 3)
        with _lock:
            keys = list(_held)
        if keys:
            _renew(keys)


def _hold(key: str) -> None:
    global _keeper
    with _lock:
        _held[key] += 1
        if _keeper is None or not _keeper.is_alive():
            # A thread of its own, not a pool's task: one loop for the process's life.
            _keeper = threading.Thread(target=_keep, name="lease-keeper", daemon=True)
            _keeper.start()


@contextmanager
def lease_held(key: str) -> Iterator[None]:
    """Hold the lease `key` while the block runs (it lapses a lease period after)."""
    _renew([key])
    _hold(key)
    try:
        yield
    finally:
        with _lock:
            _held[key] -= 1
            if _held[key] <= 0:
                del _held[key]


def process_lease(holder: str) -> str:
    return f"smallville:lease:process:{holder}"


def process_holder() -> str:
    """This process's name as a holder of work in the database (host, pid and a random
    part: a pid used again by a later process is another holder); its lease is held for
    as long as the process lives."""
    global _holder
    pid = os.getpid()
    held = _holder
    if held is not None and held[0] == pid:
        return held[1]
    with _naming:  # threads asking at once (a threads pool's first tasks) share one name
        if _holder is None or _holder[0] != pid:
            name = f"{socket.gethostname()}:{pid}:{uuid.uuid4().hex[:8]}"
            _renew([process_lease(name)])
            _hold(process_lease(name))
            _holder = (pid, name)
        return _holder[1]


def leases_alive(keys: list[str]) -> set[str]:
    """The keys among `keys` whose lease is live (all of them when the cache is down, so
    that nothing is resent on a guess)."""
    if not keys:
        return set()
    try:
        return set(cache.get_many(keys))
    except Exception as exc:
        log.warning("could not read leases: %s", exc)
        return set(keys)


EPOCH_KEY = "smallville:lease:epoch"  # when the cache began holding leases (no expiry)


def holders_alive(keys: list[str]) -> set[str]:
    """`leases_alive` for the leases of processes, whose absence settles their work for
    good: a cache that came back empty (a Redis restarted) has lost every lease, and the
    keepers write them again within a third of a lease period, so until a lease period
    after the cache's first lease read every key counts as alive."""
    if not keys:
        return set()
    try:
        found = cache.get_many([*keys, EPOCH_KEY])
        since = found.pop(EPOCH_KEY, None)
        if since is None:
            cache.add(EPOCH_KEY, time.time(), timeout=None)
            return set(keys)
        if time.time() - float(since) < _ttl():
            return set(keys)
        return set(found)
    except Exception as exc:
        log.warning("could not read leases: %s", exc)
        return set(keys)


# Live workers: each Celery worker's main process beats every third of a lease period
# (smallville_project/celery.py) into one sorted set of the shared cache's Redis, name ->
# time of its last beat; a worker is live while its last beat is within a lease period.
# Read by readiness and the metrics (observability/).
WORKERS_KEY = "smallville:workers"
_workers_clients: dict[str, Any] = {}  # the cache's URL -> a client with short timeouts


def _workers_redis() -> Any:
    url = str(settings.CACHES["default"]["LOCATION"])
    client = _workers_clients.get(url)
    if client is None:
        client = redis.Redis.from_url(
            url, socket_timeout=1, socket_connect_timeout=1, retry=Retry(NoBackoff(), 1)
        )
        _workers_clients[url] = client
    return client


def _workers_key() -> str:
    return f"{settings.CACHES['default'].get('KEY_PREFIX', '')}:{WORKERS_KEY}"


def worker_beat(name: str) -> None:
    """The worker `name` is alive now (a cache that cannot be reached only logs)."""
    try:
        _workers_redis().zadd(_workers_key(), {name: time.time()})
    except Exception as exc:
        log.warning("could not record worker %s: %s", name, exc)


def worker_gone(name: str) -> None:
    """The worker `name` stopped (a clean shutdown; a killed one lapses)."""
    try:
        _workers_redis().zrem(_workers_key(), name)
    except Exception as exc:
        log.warning("could not remove worker %s: %s", name, exc)


def workers_alive() -> list[str]:
    """The names of the workers whose last beat is within a lease period; raises when the
    cache cannot be reached (readiness reports it)."""
    client, key, since = _workers_redis(), _workers_key(), time.time() - _ttl()
    client.zremrangebyscore(key, "-inf", since - 60 * _ttl())  # long gone
    return sorted(name.decode() for name in client.zrangebyscore(key, since, "+inf"))
