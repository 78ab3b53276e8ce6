from __future__ import annotations

from django.apps import AppConfig


class AgentsConfig(AppConfig):
    name = "agents"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from agents.projections import PROJECTIONS
        from world.eventlog import projection_register

        for projection in PROJECTIONS:
            projection_register(projection)
