"""The database: DATABASE_URL, or the embedded PostgreSQL 18 + pgvector of this checkout,
which these settings only describe; it starts at the first connection
(smallville_project/postgres/base.py), never when the settings are imported."""

from __future__ import annotations

from kernel.breaker import pool_reconnect_failed
from smallville_project import embedded_db
from smallville_project.environment import env_bool, env_float, env_int, env_str, env_url

DATABASE_URL = env_url("DATABASE_URL", "", schemes=("postgres", "postgresql"))
DATABASES = {
    "default": (
        embedded_db.database_settings(DATABASE_URL)
        if DATABASE_URL
        else embedded_db.embedded_settings()
    )
}
DATABASES["default"]["TEST"] = {"NAME": env_str("SMALLVILLE_TEST_DB", "test_smallville")}
# Web processes under gunicorn (smallville_project/gunicorn_conf.py sets SMALLVILLE_DB_POOL)
# take connections from a psycopg pool per process, shared by its threads, instead of one
# persistent connection per thread; a pool needs CONN_MAX_AGE = 0 (a request hands its
# connection back when it ends). Celery workers and management commands leave it unset
# and keep their persistent connections (CONN_MAX_AGE, CELERY_DB_REUSE_MAX).
if env_bool("SMALLVILLE_DB_POOL", False):
    _pool_max = max(1, env_int("SMALLVILLE_DB_POOL_MAX", 4))
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"]["OPTIONS"] = {
        "pool": {
            "min_size": min(_pool_max, env_int("SMALLVILLE_DB_POOL_MIN", 2)),
            "max_size": _pool_max,
            # A request waits this long for a free connection, then fails (a 500).
            "timeout": env_float("SMALLVILLE_DB_POOL_TIMEOUT", 10),
            # An idle connection above min_size is closed after this many seconds.
            "max_idle": env_float("SMALLVILLE_DB_POOL_MAX_IDLE", 300),
            # A connection the pool cannot make is given up at once (not retried with a
            # backoff growing from 1 s) and the database marked down: requests then fail
            # at once, and a request's wait makes the pool connect again when it is back
            # (smallville_project/postgres/base.py).
            "reconnect_timeout": 0,
            "reconnect_failed": pool_reconnect_failed,
        }
    }

# A dependency (the database under the pool, the cache) seen down is refused at once for
# this many seconds, then probed by one request (kernel/breaker.py).
SMALLVILLE_REPROBE_SECONDS = env_float("SMALLVILLE_REPROBE_SECONDS", 0.5)
