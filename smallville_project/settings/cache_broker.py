"""The shared cache and Celery's broker: both Redis by default, with the same timeouts,
so that a hung or unreachable Redis fails a request in seconds instead of blocking it."""

from __future__ import annotations

from smallville_project.environment import env_bool, env_float, env_int, env_str, env_url

# Seconds a cache or broker operation may take, and its connect.
_REDIS_TIMEOUT = env_float("SMALLVILLE_BROKER_TIMEOUT", 5)

# The shared cache (throttle counts, leases): Redis, so every process counts the same.
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": env_url(
            "SMALLVILLE_CACHE_URL", "redis://127.0.0.1:6379/1", schemes=("redis", "rediss")
        ),
        "KEY_PREFIX": env_str("SMALLVILLE_CACHE_PREFIX", "smallville"),
        # A hung Redis fails a lease, throttle or watchdog read in seconds, never blocks it.
        "OPTIONS": {"socket_timeout": _REDIS_TIMEOUT, "socket_connect_timeout": _REDIS_TIMEOUT},
    }
}

# Celery: Redis broker by default; tasks are acknowledged late and idempotent.
CELERY_BROKER_URL = env_url(
    "CELERY_BROKER_URL", "redis://127.0.0.1:6379/0", schemes=("redis", "rediss", "amqp", "sqs")
)
CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND", "") or None
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TASK_IGNORE_RESULT = True
# Queues: ticks and agent steps on one, reflection jobs on their own (never blocks ticks).
SMALLVILLE_QUEUE = env_str("SMALLVILLE_QUEUE", "smallville")
CELERY_TASK_DEFAULT_QUEUE = SMALLVILLE_QUEUE
SMALLVILLE_REFLECTION_QUEUE = f"{SMALLVILLE_QUEUE}.reflection"
# A task unacknowledged this long (its worker died) is delivered again; keep it above the
# longest agent-step task (a redelivery while the first copy runs is harmless, only waste).
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": env_int("SMALLVILLE_VISIBILITY_TIMEOUT", 600),
    "unacked_restore_interval": env_int("SMALLVILLE_RESTORE_INTERVAL", 10),
    "unacked_restore_throttle": env_int("SMALLVILLE_RESTORE_THROTTLE", 6),
    # A hung or unreachable Redis fails a publish in seconds instead of blocking a request.
    "socket_timeout": _REDIS_TIMEOUT,
    "socket_connect_timeout": _REDIS_TIMEOUT,
}
CELERY_BROKER_CONNECTION_TIMEOUT = _REDIS_TIMEOUT
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 2,
    "interval_start": 0,
    "interval_step": 0.5,
    "interval_max": 1,
}
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
# Celery's Django fixup closes the database connections around every task unless this is
# set; a new connection (a new Postgres backend with cold caches) per tick cost ~40% of a
# 25-agent tick. Connections are still closed when unusable or older than CONN_MAX_AGE
# (smallville_project/celery.py checks before each task), and after this many tasks.
CELERY_DB_REUSE_MAX = env_int("SMALLVILLE_DB_REUSE_MAX", 10000)
