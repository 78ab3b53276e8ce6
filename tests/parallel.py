"""The suite in parallel processes (pytest-xdist, `make pytest`: docs/testing.md).

Each xdist worker (gw0, gw1, ...) is a pytest process of its own with:

- its own test database: pytest-django names it after the worker (`test_smallville_gw0`,
  from SMALLVILLE_TEST_DB's `test_smallville`), created and migrated by that worker;
- its own Redis databases for the Celery broker and the cache, derived from the URLs
  this run was given (CELERY_BROKER_URL, SMALLVILLE_CACHE_URL, by default
  redis://127.0.0.1:6379/0 and /1): worker i adds 2 i to both database numbers, so gw0
  keeps the given ones and gw1 uses /2 and /3. The worker's environment carries them, so
  the Celery workers, gunicorn and manage.py commands a test starts use them too.
  Queues, leases, throttle counts and model-server slots of one worker are then never
  seen by another, whatever their names (the session's queue and cache prefix are
  private as well: tests/conftest.py).

The environment is set by the controlling pytest process when it starts each worker
(`pytest_xdist_setupnodes` in tests/conftest.py), before the worker imports Django's
settings; each worker checks that its settings read it (`worker_settings_check`).

Tests that share a fixture wider than one test (a module's, a package's or a
directory's session fixture: a production server, Chromium, the local model) run in
the same worker, one group each (`xdist_group`, `--dist loadgroup`), so the fixture is
started once, as in a serial run; every other test goes to whichever worker is free.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from urllib.parse import urlsplit, urlunsplit

import pytest

# Redis has 16 databases unless configured otherwise: 2 per worker.
REDIS_DATABASES = 16
STEP = 2


class ParallelSetupError(RuntimeError):
    """The URLs given cannot be split between the workers; the message says why."""


def worker_index(worker_id: str) -> int:
    """gw3 -> 3."""
    if not worker_id.startswith("gw") or not worker_id[2:].isdigit():
        raise ParallelSetupError(f"unexpected xdist worker id {worker_id!r}")
    return int(worker_id[2:])


def redis_url_for_worker(url: str, index: int, name: str) -> str:
    """`url` with its database number moved up by STEP * index (redis:// and rediss://);
    any other broker's URL unchanged (its queues are private to the session anyway)."""
    parts = urlsplit(url)
    if parts.scheme not in {"redis", "rediss"}:
        return url
    path = parts.path.strip("/")
    if path and not path.isdigit():
        raise ParallelSetupError(f"{name}: cannot read the Redis database number of {url!r}")
    database = int(path or 0) + STEP * index
    if database >= REDIS_DATABASES:
        raise ParallelSetupError(
            f"{name}: worker {index} would need Redis database {database} of {url!r} "
            f"(Redis has {REDIS_DATABASES}): run fewer workers (-n)"
        )
    return urlunsplit(parts._replace(path=f"/{database}"))


def worker_environment(index: int, broker_url: str, cache_url: str) -> dict[str, str]:
    """The variables that give worker `index` its own Redis databases."""
    broker = redis_url_for_worker(broker_url, index, "CELERY_BROKER_URL")
    cache = redis_url_for_worker(cache_url, index, "SMALLVILLE_CACHE_URL")
    if _same_database(broker, cache):
        raise ParallelSetupError(
            f"the broker ({broker_url}) and the cache ({cache_url}) must be different "
            "Redis databases, of the same parity when on one server"
        )
    return {"CELERY_BROKER_URL": broker, "SMALLVILLE_CACHE_URL": cache}


def _same_database(a: str, b: str) -> bool:
    pa, pb = urlsplit(a), urlsplit(b)
    return (pa.scheme, pa.netloc, pa.path.strip("/") or "0") == (
        pb.scheme,
        pb.netloc,
        pb.path.strip("/") or "0",
    )


def workers_environments(
    worker_ids: list[str], broker_url: str, cache_url: str
) -> dict[str, dict[str, str]]:
    """Each worker's variables; no Redis database of one worker is another's."""
    environments = {
        worker: worker_environment(worker_index(worker), broker_url, cache_url)
        for worker in worker_ids
    }
    seen: dict[str, str] = {}
    for worker, env in environments.items():
        for url in env.values():
            parts = urlsplit(url)
            if parts.scheme not in {"redis", "rediss"}:
                continue
            key = f"{parts.netloc}{parts.path}"
            if seen.setdefault(key, worker) != worker:
                raise ParallelSetupError(
                    f"workers {seen[key]} and {worker} would share the Redis database {url}"
                )
    return environments


def worker_settings_check(environ: Mapping[str, str]) -> None:
    """In a worker: its settings read the URLs the controller gave it (they did unless
    Django's settings were imported before the worker's environment was set)."""
    from django.conf import settings

    expected = {
        "CELERY_BROKER_URL": str(settings.CELERY_BROKER_URL),
        "SMALLVILLE_CACHE_URL": str(settings.CACHES["default"]["LOCATION"]),
    }
    for name, value in expected.items():
        given = environ.get(name)
        if given is not None and given != value:
            raise ParallelSetupError(f"{name}: the worker was given {given}, its settings {value}")


def group_of(item: pytest.Item) -> str | None:
    """The xdist group of a test that uses a fixture wider than a test and narrower than
    the whole run: the widest such fixture's module, package or directory (a session
    fixture of a directory's conftest, such as the local model's, is that directory's).
    None for a test that needs nothing shared: it may run in any worker."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return None
    widest: tuple[int, str] | None = None
    rank = {"module": 1, "package": 2, "session": 3}
    for defs in info.name2fixturedefs.values():
        for fixturedef in defs:
            scope = fixturedef.scope
            if scope not in rank:
                continue
            baseid = fixturedef.baseid
            if not baseid.startswith("tests"):
                continue  # a plugin's (pytest-django's, ...): each worker has its own
            if scope == "session" and baseid == "tests":
                continue  # the whole run's (tests/conftest.py): each worker has its own
            where = item.nodeid.split("::", 1)[0] if scope == "module" else baseid
            if widest is None or rank[scope] > widest[0]:
                widest = (rank[scope], where)
    return None if widest is None else widest[1]


def mark_groups(items: list[pytest.Item]) -> None:
    for item in items:
        group = group_of(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))


def is_worker() -> bool:
    return "PYTEST_XDIST_WORKER" in os.environ
