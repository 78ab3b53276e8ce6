"""`/healthz` (the process is up) and `/readyz` (it can do its work: Postgres, the cache's
and the broker's Redis, at least one live Celery worker), for a load balancer or an
orchestrator: JSON, no authentication, each dependency's state and latency, a second at
most per dependency, so cheap enough to call every second.

Readiness answers 200 when every dependency is up, else 503 naming the ones that are not.
A worker is live while its last beat (world.leases.worker_beat, every third of
SMALLVILLE_LEASE_SECONDS) is within a lease period."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import redis
from django.conf import settings
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from redis.backoff import NoBackoff
from redis.retry import Retry

from world.leases import workers_alive

TIMEOUT = 1.0  # seconds a dependency may take to answer


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    latency_ms: float
    detail: str  # what was found: "up", the live workers, or the error

    def as_json(self) -> dict[str, Any]:
        return {
            "status": "up" if self.ok else "down",
            "latency_ms": round(self.latency_ms, 2),
            "detail": self.detail,
        }


_clients: dict[str, Any] = {}
_clients_lock = threading.Lock()


def redis_client(url: str) -> Any:
    """One client per URL for the process (its own small pool), short timeouts."""
    with _clients_lock:
        if url not in _clients:
            _clients[url] = redis.Redis.from_url(
                url,
                socket_timeout=TIMEOUT,
                socket_connect_timeout=TIMEOUT,
                retry=Retry(NoBackoff(), 1),  # once at once (a stale connection), no backoff
            )
        return _clients[url]


def _database() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return "up"


def _cache() -> str:
    redis_client(str(settings.CACHES["default"]["LOCATION"])).ping()
    return "up"


def _broker() -> str:
    url = str(settings.CELERY_BROKER_URL)
    if urlsplit(url).scheme in {"redis", "rediss"}:
        redis_client(url).ping()
        return "up"
    from kombu import Connection  # another broker (AMQP, SQS): kombu connects

    with Connection(url, connect_timeout=TIMEOUT) as conn:
        conn.ensure_connection(max_retries=1, timeout=int(TIMEOUT))
    return "up"


def _workers() -> str:
    alive = workers_alive()
    if not alive:
        raise LookupError("no live worker (none has beaten within a lease period)")
    return f"{len(alive)} live"


CHECKS: dict[str, Callable[[], str]] = {
    "database": _database,
    "cache": _cache,
    "broker": _broker,
    "workers": _workers,
}


def check(name: str, probe: Callable[[], str]) -> Check:
    started = time.perf_counter()
    try:
        detail, ok = probe(), True
    except Exception as exc:  # a dependency down is the answer, never a 500
        detail, ok = f"{type(exc).__name__}: {str(exc)[:200]}", False
    return Check(name, ok, (time.perf_counter() - started) * 1000, detail)


def readiness() -> list[Check]:
    return [check(name, probe) for name, probe in CHECKS.items()]


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"status": "ok"})


@never_cache
@require_GET
def readyz(request: HttpRequest) -> JsonResponse:
    checks = readiness()
    down = [c.name for c in checks if not c.ok]
    body = {
        "status": "ready" if not down else "unavailable",
        "down": down,
        "checks": {c.name: c.as_json() for c in checks},
    }
    return JsonResponse(body, status=503 if down else 200)


class HealthMiddleware:
    """`/healthz` and `/readyz` answered before anything else reads the request, its Host
    included: an orchestrator's probe names the machine's address, not an allowed host."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.routes: dict[str, Callable[[HttpRequest], HttpResponse]] = {
            "/healthz": healthz,
            "/readyz": readyz,
        }

    def __call__(self, request: HttpRequest) -> HttpResponse:
        view = self.routes.get(request.path_info)
        if view is not None:
            return view(request)
        return self.get_response(request)
