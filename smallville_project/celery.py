"""The Celery app: tasks live in the apps, the broker comes from settings."""

from __future__ import annotations

import os
from contextlib import ExitStack
from typing import Any

from celery import Celery, bootsteps
from celery.signals import (
    before_task_publish,
    setup_logging,
    task_postrun,
    task_prerun,
    worker_process_shutdown,
)

from kernel.logcontext import about
from kernel.tracing import extract, flush, inject, span

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "smallville_project.settings")

app = Celery("smallville")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@setup_logging.connect
def _logging(loglevel: Any = None, **_: Any) -> None:
    """The worker logs as the settings say (SMALLVILLE_LOG_FORMAT, LOG_LEVEL), the same
    lines as the web's; Celery's own loggers at the level its command line asks."""
    import logging.config

    from django.conf import settings

    logging.config.dictConfig(settings.LOGGING)
    if loglevel:
        logging.getLogger("celery").setLevel(loglevel)


# Tasks under way in this process (a threads pool runs several): each task's prerun,
# body and postrun run in one thread, so its scope is left in the context it was entered.
_task_scopes: dict[str, ExitStack] = {}


@before_task_publish.connect
def _trace_carried(headers: dict[str, Any] | None = None, **_: Any) -> None:
    """A task sent carries the sender's trace (kernel/tracing.py), whoever sends it."""
    if headers is not None:
        inject(headers)


@task_prerun.connect
def _about_the_task(
    task_id: str = "", task: Any = None, args: Any = (), kwargs: Any = None, **_: Any
) -> None:
    """A task's log lines say which task and, where its arguments name them, which
    simulation and step (kernel/logcontext.py); with tracing on it is a span continuing
    its sender's trace. task_postrun ends both."""
    named = dict(kwargs or {})
    if args and isinstance(args[0], int):
        named.setdefault("simulation_id", args[0])
        if len(args) > 1 and isinstance(args[1], int):
            named.setdefault("step", args[1])
    name = getattr(task, "name", None)
    request = getattr(task, "request", None)
    carrier = {key: getattr(request, key, None) for key in ("traceparent", "tracestate")}
    scope = ExitStack()
    scope.enter_context(
        about(task=name, simulation=named.get("simulation_id"), step=named.get("step"))
    )
    parent = extract({k: v for k, v in carrier.items() if v})
    scope.enter_context(span(f"run {name}", kind="consumer", context=parent))
    _task_scopes[task_id] = scope


@task_postrun.connect
def _task_over(task_id: str = "", **_: Any) -> None:
    if (scope := _task_scopes.pop(task_id, None)) is not None:
        scope.close()


@worker_process_shutdown.connect
def _process_gone(**_: Any) -> None:
    """A pool process exits: its live gauges (calls in flight) no longer count, and its
    spans are exported."""
    from observability.metrics import process_gone

    process_gone(os.getpid())
    flush()


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
    for readiness (/readyz) and the live-workers metric, from a thread of its own: the
    worker's event loop stalls while it reconnects to a broker that came back. A clean
    stop removes it at once."""

    def start(self, worker: Any) -> None:
        import threading

        from django.conf import settings

        from world.leases import worker_beat

        name, period = str(worker.hostname), float(settings.SMALLVILLE_LEASE_SECONDS) / 3
        self.stopping = threading.Event()

        def beat() -> None:
            while not self.stopping.is_set():
                worker_beat(name)
                self.stopping.wait(period)

        self.beating = threading.Thread(target=beat, name="presence", daemon=True)
        self.beating.start()

    def stop(self, worker: Any) -> None:
        from world.leases import worker_gone

        self.stopping.set()
        self.beating.join(timeout=2)  # no beat lands after the removal
        worker_gone(str(worker.hostname))


app.steps["worker"].add(Watchdog)
app.steps["worker"].add(Presence)
