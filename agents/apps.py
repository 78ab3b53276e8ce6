from __future__ import annotations

from django.apps import AppConfig


class AgentsConfig(AppConfig):
    name = "agents"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The mind's prompt tasks (their offline rules among them) are known from the
        # start: the llm layer asks for `importance` by name.
        import agents.cognition.prompts  # noqa: F401
        from agents.projections import PROJECTIONS
        from world.eventlog import projection_register

        for projection in PROJECTIONS:
            projection_register(projection)
