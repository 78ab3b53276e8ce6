"""The web app's configuration."""

from __future__ import annotations

from django.apps import AppConfig


class WebConfig(AppConfig):
    name = "web"
    default_auto_field = "django.db.models.BigAutoField"
