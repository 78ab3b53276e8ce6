from __future__ import annotations

from django.apps import AppConfig


class AgentsConfig(AppConfig):
    name = "agents"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from . import (
            projections,  # noqa: F401  registers the agent projection
            tasks,  # noqa: F401  tells the engine how to enqueue its work
        )
