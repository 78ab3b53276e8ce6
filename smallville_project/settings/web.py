"""The web face: static files, request size limits, failed logins."""

from __future__ import annotations

from pathlib import Path

from smallville_project.environment import env_int, env_rate, env_str

from .base import BASE_DIR

STATIC_URL = "static/"
# `manage.py collectstatic` (make static) gathers them here; WhiteNoise serves them, gzipped.
# Not the manifest storage: it makes every page with `{% static %}` a 500 until collectstatic
# has run (tests and runserver included); without it file names carry no hash, so browsers
# revalidate after WHITENOISE_MAX_AGE instead of caching forever.
STATIC_ROOT = Path(env_str("SMALLVILLE_STATIC_ROOT", "") or BASE_DIR / "staticfiles")
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

# Threads of each production server process for the WSGI application (kernel.pools "wsgi";
# smallville_project/gunicorn_conf.py sizes the database pool by it).
SMALLVILLE_WEB_THREADS = env_int("SMALLVILLE_WEB_THREADS", 4, minimum=1)

# Request size limits: a simulation request is small; nothing legitimate is near this.
# Django applies it to forms; api.middleware.RequestSizeLimitMiddleware to every /api/ body.
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("SMALLVILLE_MAX_REQUEST_BYTES", 256 * 1024)
# A town file posted to /api/towns/ (kernel.limits): a Tiled map carries its art.
SMALLVILLE_MAX_TOWN_BYTES = env_int("SMALLVILLE_MAX_TOWN_BYTES", 4 * 1024 * 1024)

# Failed logins (/accounts/login/) and wrong API tokens per client address; past this,
# its attempts get 429 until the oldest failure leaves the window (kernel/auth_failures.py).
SMALLVILLE_THROTTLE_AUTH_FAILURES = env_rate("SMALLVILLE_THROTTLE_AUTH_FAILURES", "10/minute")
