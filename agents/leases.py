"""Leases: a worker holding a unit of work says so every few seconds in the shared cache.

A lease lapses SMALLVILLE_LEASE_SECONDS after its holder's last renewal, so the watchdog
can tell a slow unit of work (its lease is live) from one whose worker died (it lapsed).
One thread per process renews every lease the process holds; holding a lease costs one
cache write. A cache that cannot be reached never fails the work: a lease it cannot
record is only a later resend, which finds the work done.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.core.cache import cache

log = logging.getLogger(__name__)

_held: Counter[str] = Counter()
_lock = threading.Lock()
_keeper: threading.Thread | None = None


def simulation_lease(simulation_id: int) -> str:
    return f"smallville:lease:simulation:{simulation_id}"


def ahead_lease(simulation_id: int) -> str:
    """Held by the process running a simulation's residents ahead of each other."""
    return f"smallville:lease:ahead:{simulation_id}"


def job_lease(job_id: int) -> str:
    return f"smallville:lease:reflection:{job_id}"


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


@contextmanager
def lease_held(key: str) -> Iterator[None]:
    """Hold the lease `key` while the block runs (it lapses a lease period after)."""
    global _keeper
    _renew([key])
    with _lock:
        _held[key] += 1
        if _keeper is None or not _keeper.is_alive():
            _keeper = threading.Thread(target=_keep, name="lease-keeper", daemon=True)
            _keeper.start()
    try:
        yield
    finally:
        with _lock:
            _held[key] -= 1
            if _held[key] <= 0:
                del _held[key]


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
