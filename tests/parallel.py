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
the same worker, one unit of work each (`group_of`, `GroupScheduling`, chosen by
`--dist loadgroup`), so the fixture is started once, as in a serial run; every other
test goes to whichever worker is free. (xdist's own `xdist_group` marks are not used:
they rename the test's node id, which pytest 9 no longer lets a plugin do.)
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path, PurePosixPath
from urllib.parse import urlsplit, urlunsplit

from xdist.scheduler import LoadScopeScheduling

from tests import durations

# Redis has 16 databases unless configured otherwise: 2 per worker.
REDIS_DATABASES = 16
STEP = 2


# numpy's OpenBLAS starts a thread per core in every process and spins them while it
# waits: with several workers on 2 cores they take the cores from each other (a retrieval
# test of 10 s took 130 s beside two other workers). One thread each in a parallel run.
ONE_BLAS_THREAD = {
    name: os.environ.get(name, "1") for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")
}


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
    return {"CELERY_BROKER_URL": broker, "SMALLVILLE_CACHE_URL": cache, **ONE_BLAS_THREAD}


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


_WIDE = re.compile(r"""scope\s*=\s*["'](module|package|session)["']""")


@functools.cache
def _wide_scopes(path: Path) -> frozenset[str]:
    """The scopes wider than a test of the fixtures `path` defines (none if no such file)."""
    try:
        return frozenset(_WIDE.findall(path.read_text()))
    except OSError:
        return frozenset()


def group_of(nodeid: str, root: Path) -> str:
    """The unit of work of a test, kept in one worker: the directory whose conftest.py
    has a package or session fixture (tests/browser's server and Chromium, tests/clients',
    the local model of tests/local_model); else the module, when it or a conftest.py above
    it has a module fixture (a production server per module); else the test alone. The
    session fixtures of tests/conftest.py are every worker's own."""
    module = nodeid.split("::", 1)[0]
    parts = PurePosixPath(module).parts
    for depth in range(2, len(parts)):
        directory = PurePosixPath(*parts[:depth])
        if _wide_scopes(root / directory / "conftest.py") & {"package", "session"}:
            return str(directory)
    conftests = [
        root / PurePosixPath(*parts[:depth]) / "conftest.py" for depth in range(1, len(parts))
    ]
    if any("module" in _wide_scopes(path) for path in [root / module, *conftests]):
        return module
    return nodeid


def units_longest_first(
    collected: list[str], unit_of: Callable[[str], str]
) -> list[tuple[str, list[str]]]:
    """The units of work of the collected tests (in collection order inside each), the one
    expected to take longest first (tests/durations.py); ties in collection order."""
    units: dict[str, list[str]] = {}
    for nodeid in collected:
        units.setdefault(unit_of(nodeid), []).append(nodeid)
    return sorted(units.items(), key=lambda unit: -durations.seconds(unit[1]))


class GroupScheduling(LoadScopeScheduling):
    """xdist's scope scheduling with `group_of`'s units, handed out longest first (by the
    seconds tests/durations.json expects of their tests), each to the first worker free:
    the run does not end waiting on a long unit handed out last."""

    collection: list[str] | None

    def _split_scope(self, nodeid: str) -> str:
        return group_of(nodeid, self.config.rootpath)

    def schedule(self) -> None:
        """LoadScopeScheduling.schedule with the work queue ordered by expected seconds."""
        assert self.collection_is_completed
        if self.collection is not None:
            for node in self.nodes:
                self._reschedule(node)
            return
        if not self._check_nodes_have_same_collection():
            self.log("**Different tests collected, aborting run**")
            return
        collected: list[str] = list(next(iter(self.registered_collections.values())))
        self.collection = collected
        if not collected:
            return
        for scope, nodeids in units_longest_first(collected, self._split_scope):
            self.workqueue[scope] = dict.fromkeys(nodeids, False)
        for _ in range(max(0, len(self.nodes) - len(self.workqueue))):
            unused, _assigned = self.assigned_work.popitem()
            unused.shutdown()
        for node in self.nodes:
            self._assign_work_unit(node)
        for node in self.nodes:
            self._reschedule(node)
        if not self.workqueue:
            for node in self.nodes:
                node.shutdown()


def is_worker() -> bool:
    return "PYTEST_XDIST_WORKER" in os.environ
