"""The composition root, at the top of the layers: settings, the Celery app, URLs, the
production server and the embedded database wire the apps together. No app imports it
(apps read settings through django.conf.settings); what apps share is in kernel/."""

from __future__ import annotations

from .celery import app as celery_app

__all__ = ("celery_app",)
