"""The production web server: `gunicorn -c python:smallville_project.gunicorn_conf`.

Used by `make serve` and by `python -m bench load`. Uvicorn workers
(smallville_project.web_worker) serving smallville_project.asgi: the WSGI application in
4 threads per process, as the threaded workers ran it, and live event streams on each
process's event loop (no thread each). Sized for a small machine: 2 processes x 4 threads
by default, each process with its own psycopg pool of database connections
(SMALLVILLE_DB_POOL, set here for gunicorn only; Celery workers keep their persistent
connections). Everything can be changed from the environment:

- SMALLVILLE_WEB_BIND (default 127.0.0.1:8000), SMALLVILLE_WEB_WORKERS (2),
  SMALLVILLE_WEB_THREADS (4), SMALLVILLE_WEB_TIMEOUT (60: seconds a worker may go without
  a heartbeat before it is killed), SMALLVILLE_WEB_GRACEFUL_TIMEOUT (20: seconds to finish
  the requests in flight on SIGTERM or Ctrl-C), SMALLVILLE_WEB_ACCESS_LOG (a path, or `-`
  for stderr; off by default), SMALLVILLE_WEB_LOG_LEVEL (info);
- SMALLVILLE_DB_POOL (1 here), SMALLVILLE_DB_POOL_MIN (2), SMALLVILLE_DB_POOL_MAX (the
  threads per process and one for the stream hub, so a request never waits for a
  connection): see settings/database.py.

Each value is read strictly (smallville_project/environment.py): a bad one stops the start.

Ctrl-C (SIGINT) stops gracefully here, as SIGTERM does (gunicorn's own quick stop on
SIGINT once hung gthread workers for 20 s; `make serve` gets SIGINT to every process of
its group): the master treats it as SIGTERM, and a uvicorn worker stops gracefully on
either, ending its streams at once.

Importing this module changes nothing (the load bench reads it); the database pool's
environment is set in the master when gunicorn starts, before it forks the workers.
"""

from __future__ import annotations

import os
import signal
from typing import Any

from smallville_project.environment import env_choice, env_int, env_str

wsgi_app = "smallville_project.asgi:application"
bind = [env_str("SMALLVILLE_WEB_BIND", "127.0.0.1:8000")]
worker_class = "smallville_project.web_worker.Worker"
workers = env_int("SMALLVILLE_WEB_WORKERS", 2, minimum=1)
# Threads of each process for the WSGI application (smallville_project.gateway reads the
# same variable); live streams take none.
threads = env_int("SMALLVILLE_WEB_THREADS", 4, minimum=1)
# Each worker opens its own pool after the fork: the app is never loaded in the master.
preload_app = False
timeout = env_int("SMALLVILLE_WEB_TIMEOUT", 60, minimum=1)
graceful_timeout = env_int("SMALLVILLE_WEB_GRACEFUL_TIMEOUT", 20, minimum=0)
keepalive = 5
# Recycle a worker now and then (a slow leak cannot grow without bound), jittered so the
# workers do not restart together.
max_requests = 20_000
max_requests_jitter = 2_000
# No control socket: several servers (make serve, the load bench) may run side by side.
control_socket_disable = True
accesslog = env_str("SMALLVILLE_WEB_ACCESS_LOG", "") or None
errorlog = "-"
loglevel = env_choice(
    "SMALLVILLE_WEB_LOG_LEVEL", "info", choices=("debug", "info", "warning", "error", "critical")
)
proc_name = "smallville-web"
# SMALLVILLE_LOG_FORMAT=json: gunicorn's own lines as JSON too (kernel/logformat.py).
if env_choice("SMALLVILLE_LOG_FORMAT", "text", choices=("text", "json")) == "json":
    # gunicorn's own configuration, its one formatter made the JSON one.
    logconfig_dict = {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"generic": {"()": "kernel.logformat.JsonFormatter"}},
    }

# What the web processes add to their environment unless it is set already.
# One connection more than the threads: the stream hub's reads (integration.streamhub).
POOL_ENVIRONMENT = {"SMALLVILLE_DB_POOL": "1", "SMALLVILLE_DB_POOL_MAX": str(threads + 1)}


def pool_sizes(env: dict[str, str] | None = None) -> tuple[int, int]:
    """(min, max) connections of each web process's pool, as settings/database.py reads them."""
    env = {**POOL_ENVIRONMENT, **(os.environ if env is None else env)}
    most = max(1, int(env["SMALLVILLE_DB_POOL_MAX"]))
    return min(most, int(env.get("SMALLVILLE_DB_POOL_MIN", "2"))), most


def on_starting(server: Any) -> None:
    """In the master, before the workers exist: the pool for them, and SIGINT as SIGTERM."""
    for name, value in POOL_ENVIRONMENT.items():
        os.environ.setdefault(name, value)
    server.handle_int = server.handle_term
    _metrics().stale_files_remove()


def child_exit(server: Any, worker: Any) -> None:
    """A web process exited: its live gauges (calls in flight, stream clients) no longer count."""
    _metrics().process_gone(worker.pid)


def _metrics() -> Any:
    """observability.metrics, with the settings read first (they name the metrics' folder)."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "smallville_project.settings")
    import smallville_project.settings  # noqa: F401
    from observability import metrics

    return metrics


def post_worker_init(worker: Any) -> None:
    """A worker treats SIGINT (Ctrl-C reaches the whole process group) as SIGTERM."""
    signal.signal(signal.SIGINT, worker.handle_exit)
