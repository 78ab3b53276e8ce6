from __future__ import annotations

from django.apps import AppConfig


class IntegrationConfig(AppConfig):
    name = "integration"
    default_auto_field = "django.db.models.BigAutoField"
