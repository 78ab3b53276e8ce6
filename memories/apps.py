from __future__ import annotations

from django.apps import AppConfig


class MemoriesConfig(AppConfig):
    name = "memories"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from memories.projections import MemoryProjection
        from world.eventlog import projection_register

        projection_register(MemoryProjection())
