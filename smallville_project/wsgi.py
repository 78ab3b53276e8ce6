"""WSGI entry point: Django's application, with chunked request bodies read (or refused)
first (smallville_project.chunked).

The URL conf, and with it every view and the modules they import, is loaded here, when a
server process starts, not by its first request: a gunicorn worker's first requests
otherwise waited seconds for those imports (3.4 s on this machine), and while the
database was down its first 503s came that late."""

from __future__ import annotations

import os

from django.core.wsgi import get_wsgi_application
from django.urls import get_resolver

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "smallville_project.settings")
django_application = get_wsgi_application()
get_resolver().url_patterns  # noqa: B018  (loads the URL conf and every view now)

from .chunked import ChunkedBodies  # noqa: E402  (settings are configured above)

application = ChunkedBodies(django_application)
