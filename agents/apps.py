from __future__ import annotations

from django.apps import AppConfig


class AgentsConfig(AppConfig):
    name = "agents"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Importing these registers the agent projections, the Celery routes of the tick
        # engine, and the commit hooks that resolve conflicts between decisions (and keep a
        # resident a user just took control of from walking off on its old plan).
        from . import controls, projections, tasks  # noqa: F401
        from .cognition import commit  # noqa: F401
