"""`/metrics`: the service's Prometheus metrics (kernel/metrics.py) added up over every
process of this deployment on this machine (prometheus-client's multiprocess mode), and
what is read when scraped: live workers and the depth of the deployment's queues.

Access: a request with `Authorization: Bearer <SMALLVILLE_METRICS_TOKEN>` when a token is
set, or one from an address in SMALLVILLE_METRICS_ALLOW (loopback by default); else 403."""

from __future__ import annotations

import contextlib
import hmac
import ipaddress
import os
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import redis
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead
from prometheus_client.registry import Collector

from observability.health import redis_client
from world.leases import workers_alive

# Celery's Redis transport keeps a queue's messages of priority 0 under its name and the
# others under the name, "\x06\x16" and the priority (3, 6 and 9 by default).
_PRIORITY_SEPARATOR = "\x06\x16"
_PRIORITIES = (3, 6, 9)


def allowed(request: HttpRequest) -> bool:
    token = str(settings.SMALLVILLE_METRICS_TOKEN)
    given = request.headers.get("Authorization", "")
    if token and hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
        return True
    try:
        address = ipaddress.ip_address(request.META.get("REMOTE_ADDR", ""))
    except ValueError:
        return False
    return any(
        address in ipaddress.ip_network(net, strict=False)
        for net in settings.SMALLVILLE_METRICS_ALLOW
    )


class ReadWhenScraped(Collector):
    """Gauges read at each scrape, from the shared cache and the broker."""

    def collect(self) -> Iterator[Metric]:
        workers = GaugeMetricFamily(
            "smallville_workers_live", "Celery workers whose last beat is within a lease period."
        )
        with contextlib.suppress(Exception):  # the cache is down: no reading (see /readyz)
            workers.add_metric([], len(workers_alive()))
        yield workers
        depth = GaugeMetricFamily(
            "smallville_queue_depth", "Tasks waiting on the deployment's queues.", labels=["queue"]
        )
        for queue, waiting in _queue_depths().items():
            depth.add_metric([queue], waiting)
        yield depth


def _queue_depths() -> dict[str, int]:
    url = str(settings.CELERY_BROKER_URL)
    if urlsplit(url).scheme not in {"redis", "rediss"}:
        return {}
    base = str(settings.SMALLVILLE_QUEUE)
    kinds = {"ticks": base, "reflection": f"{base}.reflection", "webhooks": f"{base}.webhooks"}
    try:
        with redis_client(url).pipeline(transaction=False) as pipe:
            for name in kinds.values():
                pipe.llen(name)
                for priority in _PRIORITIES:
                    pipe.llen(f"{name}{_PRIORITY_SEPARATOR}{priority}")
            lengths = pipe.execute()
    except redis.RedisError:
        return {}
    per = 1 + len(_PRIORITIES)
    return {kind: sum(lengths[i * per : (i + 1) * per]) for i, kind in enumerate(kinds)}


def exposition() -> bytes:
    registry = CollectorRegistry()
    MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    registry.register(ReadWhenScraped())
    return generate_latest(registry)


@never_cache
@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    if not settings.SMALLVILLE_METRICS:
        return HttpResponse("metrics are off (SMALLVILLE_METRICS)\n", status=404)
    if not allowed(request):
        return HttpResponse(
            "metrics: a bearer token or an allowed address is needed\n",
            status=403,
            content_type="text/plain",
        )
    return HttpResponse(exposition(), content_type=CONTENT_TYPE_LATEST)


def process_gone(pid: int) -> None:
    """A process of this deployment exited: its live gauges no longer count."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        mark_process_dead(pid)  # type: ignore[no-untyped-call]


def stale_files_remove() -> None:
    """At a deployment's start (gunicorn's master): the files of processes that are gone
    (their counts start again from zero, as a restarted service's do)."""
    folder = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if not folder or not Path(folder).is_dir():
        return
    for path in Path(folder).glob("*.db"):
        pid = path.stem.rsplit("_", 1)[-1]
        if pid.isdigit() and not _alive(int(pid)):
            path.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
