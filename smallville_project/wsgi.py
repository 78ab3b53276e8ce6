"""WSGI entry point: Django's application, with chunked request bodies read (or refused)
first (smallville_project.chunked)."""

from __future__ import annotations

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "smallville_project.settings")
django_application = get_wsgi_application()

from .chunked import ChunkedBodies  # noqa: E402  (settings are configured above)

application = ChunkedBodies(django_application)
