from __future__ import annotations

from django.apps import AppConfig


class ReflectionConfig(AppConfig):
    name = "agents.reflection"
    label = "reflection"
    verbose_name = "Reflection"
    default_auto_field = "django.db.models.BigAutoField"
    # Its prompt tasks (reflection_questions, reflection_insights) are the mind's, in
    # agents/tasks/, registered with the others when the agents app is ready.
