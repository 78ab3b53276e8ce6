from __future__ import annotations

from django.apps import AppConfig


class LlmConfig(AppConfig):
    name = "llm"
    label = "llm"
    verbose_name = "Language models"
    default_auto_field = "django.db.models.BigAutoField"
