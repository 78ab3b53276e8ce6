from __future__ import annotations

from django.apps import AppConfig


class ReflectionConfig(AppConfig):
    name = "agents.reflection"
    label = "reflection"
    verbose_name = "Reflection"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from agents.reflection import prompts  # noqa: F401  registers the reflection prompt tasks
