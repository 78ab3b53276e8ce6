"""Django's PostgreSQL backend whose pool of connections (web processes under gunicorn)
answers at once while the database is known to be down, and serves again as soon as it
is back.

Django's pooled connect waits the pool's whole timeout (SMALLVILLE_DB_POOL_TIMEOUT, 10 s)
for a connection the pool cannot make while the database is down, and the pool retries
its connections with a backoff that doubles from 1 s, so the web served again 4-10 s
after the database's return. Here the pool gives up a connection at its first failed
attempts (`reconnect_timeout` 0, settings/database.py) and opens `database_breaker`
(its `reconnect_failed` callback); a request waiting for a connection sees that within
WAIT_STEP and fails (a 503), and requests meanwhile fail without waiting. One request
per SMALLVILLE_REPROBE_SECONDS is let through as the probe: its wait makes the pool try
to connect again, at once.

With DATABASE_URL unset, the settings name the embedded server without starting it
(`EMBEDDED`): it is started, and where it listens written into the settings, when the
process first needs a connection (or the pool its parameters), never at import.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

import psycopg
from django.db.backends.postgresql import base, client
from psycopg_pool import PoolTimeout

from kernel.breaker import database_breaker
from smallville_project import embedded_db

WAIT_STEP = 0.05  # seconds between looks at the breaker while waiting for a connection


def _embedded_started(settings_dict: dict[str, Any]) -> None:
    """The embedded server started and where it listens in `settings_dict`, if it names
    the embedded server and no host has been written into it yet (or set by hand)."""
    if settings_dict.get("EMBEDDED") and not settings_dict["HOST"]:
        embedded_db.embedded_fill(settings_dict)


class DatabaseClient(client.DatabaseClient):
    """`manage.py dbshell`: psql, on the embedded server too."""

    def runshell(self, parameters: Iterable[str]) -> None:
        _embedded_started(self.connection.settings_dict)
        super().runshell(parameters)


class DatabaseWrapper(base.DatabaseWrapper):
    client_class = DatabaseClient

    def get_connection_params(self) -> dict[str, Any]:
        _embedded_started(self.settings_dict)
        return super().get_connection_params()

    def get_new_connection(self, conn_params: dict[str, Any]) -> Any:
        if self.pool:
            _pool_wait(self.pool)
        return super().get_new_connection(conn_params)


def _pool_wait(pool: Any) -> None:
    """Return when `pool` has a connection for this request (taken and given back, so
    Django's own connect takes it at once); raise OperationalError at once while the
    database is known to be down, or as soon as a connect fails during the wait."""
    if not database_breaker.admit():
        raise psycopg.OperationalError("the database is down (seen moments ago)")
    failures = database_breaker.failures
    pool.open()
    deadline = time.monotonic() + pool.timeout
    while True:
        left = deadline - time.monotonic()
        try:
            connection = pool.getconn(timeout=max(0.001, min(WAIT_STEP, left)))
            break
        except PoolTimeout:
            if left <= WAIT_STEP:
                raise
            if database_breaker.failures != failures:  # the pool failed to connect
                raise psycopg.OperationalError("the database is down") from None
    pool.putconn(connection)
    database_breaker.succeeded()
