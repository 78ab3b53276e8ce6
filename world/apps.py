from __future__ import annotations

from django.apps import AppConfig


class WorldConfig(AppConfig):
    name = "world"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from . import projections  # noqa: F401  registers the simulation projection
