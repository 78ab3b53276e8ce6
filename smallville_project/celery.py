"""The Celery app: tasks live in the apps, the broker comes from settings."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "smallville_project.settings")

app = Celery("smallville")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
