from __future__ import annotations

from typing import Any

from django.apps import AppConfig
from django.db.models.signals import post_migrate


class AgentsConfig(AppConfig):
    name = "agents"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The mind's prompt tasks (their offline rules among them) are known from the
        # start: the llm layer asks for `importance` by name.
        import agents.tasks  # noqa: F401
        from agents.projections import PROJECTIONS
        from world.eventlog import projection_register

        for projection in PROJECTIONS:
            projection_register(projection)
        post_migrate.connect(_shipped_ensure, sender=self)


def _shipped_ensure(plan: Any = None, **kwargs: Any) -> None:
    """After `migrate` brings the database up to date, the shipped bases and their towns
    are rows, so a fresh database lists them (`GET /api/towns/`, `/api/bases/`) before
    anything uses them. Not after a flush (a test's; it sends no plan), nor after
    migrating backwards, when the tables need not match the models."""
    if plan is None or any(backwards for _, backwards in plan):
        return
    from agents.bases.services import bases_shipped_ensure
    from world.towns import shipped_town_names, town_get_or_import

    town_get_or_import()  # the Ville first, then the bases' towns, as they always were
    bases_shipped_ensure()
    for name in shipped_town_names():
        town_get_or_import(name)
