from __future__ import annotations

from django.apps import AppConfig


class WorldConfig(AppConfig):
    name = "world"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from world.projections import SimulationProjection

        from .eventlog import projection_register

        projection_register(SimulationProjection())
