"""The experiments app: variants x seeds of simulations run on the workers, and their results."""

from __future__ import annotations

from django.apps import AppConfig


class ExperimentsConfig(AppConfig):
    name = "experiments"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # A run's simulation ending moves its experiment on (experiments.receivers).
        from . import receivers

        receivers.connect()
