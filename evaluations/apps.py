"""The evaluations app: the paper's evaluation of a simulation, as records."""

from __future__ import annotations

from django.apps import AppConfig


class EvaluationsConfig(AppConfig):
    name = "evaluations"
    default_auto_field = "django.db.models.BigAutoField"
