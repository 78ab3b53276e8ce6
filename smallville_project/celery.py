"""The Celery app: tasks live in the apps, the broker comes from settings."""

from __future__ import annotations

import os
from typing import Any

from celery import Celery, bootsteps
from celery.signals import task_prerun, worker_process_shutdown

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "smallville_project.settings")

app = Celery("smallville")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_process_shutdown.connect
def _process_gone(**_: Any) -> None:
    """A pool process exits: its live gauges (calls in flight) no longer count."""
    from observability.metrics import process_gone

    process_gone(os.getpid())


@task_prerun.connect
def _connections_check(**_: Any) -> None:
    """Keep a worker's database connections across tasks, as Django keeps a web process's
    across requests: closed only when unusable or older than CONN_MAX_AGE."""
    from django.db import close_old_connections

    close_old_connections()


class Watchdog(bootsteps.StartStopStep):
    """Every SMALLVILLE_WATCHDOG_SECONDS the worker asks itself (a task, so the database
    is only used by the pool) to resume running simulations whose tick was lost, and to
    send webhook deliveries that are due again."""

    requires = ("celery.worker.components:Timer",)

    def start(self, worker: Any) -> None:
        from django.conf import settings

        worker.timer.call_repeatedly(
            settings.SMALLVILLE_WATCHDOG_SECONDS,
            lambda: app.send_task("agents.runs_watch", queue=app.conf.task_default_queue),
        )
        # Running experiments whose advance was lost (a killed worker, a restart).
        worker.timer.call_repeatedly(
            settings.SMALLVILLE_WATCHDOG_SECONDS,
            lambda: app.send_task("experiments.sweep", queue=app.conf.task_default_queue),
        )
        # Webhook deliveries due whose task is not on its way (integration/webhooks).
        worker.timer.call_repeatedly(
            settings.SMALLVILLE_WATCHDOG_SECONDS,
            lambda: app.send_task(
                "integration.webhooks_sweep", queue=f"{app.conf.task_default_queue}.webhooks"
            ),
        )


class Presence(bootsteps.StartStopStep):
    """The worker says it is alive every third of a lease period (world.leases.worker_beat),
    for readiness (/readyz) and the live-workers metric; a clean stop removes it at once."""

    requires = ("celery.worker.components:Timer",)

    def start(self, worker: Any) -> None:
        from django.conf import settings

        from world.leases import worker_beat

        name = str(worker.hostname)
        worker_beat(name)
        worker.timer.call_repeatedly(
            float(settings.SMALLVILLE_LEASE_SECONDS) / 3, lambda: worker_beat(name)
        )

    def stop(self, worker: Any) -> None:
        from world.leases import worker_gone

        worker_gone(str(worker.hostname))


app.steps["worker"].add(Watchdog)
app.steps["worker"].add(Presence)
