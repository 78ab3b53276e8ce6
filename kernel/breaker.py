"""Circuit breakers: what this process last saw of a dependency (the database, the shared
cache), so that one known to be down is answered at once instead of once per request
after its full timeout.

A breaker is closed (calls go ahead) until a call fails; it is then open for
SMALLVILLE_REPROBE_SECONDS, during which callers are refused at once. After that, one
caller is let through as the probe (the others are still refused); its success closes
the breaker, its failure opens it for another period. So a dependency that is back
serves again within about one period of its return, and one that is down holds at most
one request per period (the probe) for its timeout.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from django.conf import settings


class Breaker:
    def __init__(self, name: str) -> None:
        self.name = name
        self._lock = threading.Lock()
        self._open = False
        self._probe_at = 0.0  # monotonic time from which the next probe may go
        self.failures = 0  # failures seen so far (a waiting caller compares it)

    @property
    def is_open(self) -> bool:
        return self._open

    def admit(self) -> bool:
        """Whether a call may go ahead: the breaker is closed, or this caller is the probe."""
        with self._lock:
            if not self._open:
                return True
            now = time.monotonic()
            if now < self._probe_at:
                return False
            # One probe per period; should it neither succeed nor fail, another goes after it.
            self._probe_at = now + _period()
            return True

    def failed(self) -> None:
        """A call found the dependency down: refuse callers for a period."""
        with self._lock:
            self._open = True
            self.failures += 1
            self._probe_at = time.monotonic() + _period()

    def succeeded(self) -> None:
        with self._lock:
            self._open = False


def _period() -> float:
    return float(settings.SMALLVILLE_REPROBE_SECONDS)


database_breaker = Breaker("database")
cache_breaker = Breaker("cache")


def pool_reconnect_failed(pool: Any) -> None:
    """The pool of database connections could not make one (its `reconnect_failed`)."""
    database_breaker.failed()
