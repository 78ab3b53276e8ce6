from __future__ import annotations

from django.apps import AppConfig


class IntegrationConfig(AppConfig):
    name = "integration"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Webhooks listen to the signals of the layers below; their tasks register here.
        from integration.webhooks import tasks  # noqa: F401
        from integration.webhooks.receivers import receivers_connect

        receivers_connect()
