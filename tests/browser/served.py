"""The server the browser tests drive: the production server (tests/production_server.py:
gunicorn with its uvicorn workers, as `make serve` starts it) on the test database, so a
page that only another server could serve fails a test; and Celery workers on its queue."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.test.utils import override_settings

from runtime.workerproc import WorkerProcess
from smallville_project.celery import app
from tests.production_server import ProductionServer
from tests.runtime.workers import worker_env


class LiveServer(ProductionServer):
    """Given as pytest-django's `live_server` fixture gives its server (`url`), under the
    same name: pytest-django then makes every test that names it transactional, which a
    server in another process needs (it reads only what the test committed, sessions of
    a login included). pytest-django enables these settings around each such test; the
    server process has its own, so there are none to change."""

    _live_server_modified_settings = override_settings()

    @property
    def queues(self) -> tuple[str, str, str]:
        return (self.queue, f"{self.queue}.reflection", f"{self.queue}.webhooks")

    def stop(self) -> None:
        super().stop()
        with app.connection_for_write() as conn:
            for name in self.queues:
                conn.default_channel.queue_delete(name)  # type: ignore[attr-defined]

    @contextmanager
    def worker(self, **env: str) -> Iterator[WorkerProcess]:
        """A Celery worker on the server's queue for the block, as `make serve` runs one
        beside it: runs started in the page (or by the test) are advanced. The tasks it
        leaves are purged after it, not left to the next test's worker."""
        worker = WorkerProcess(self.queue, worker_env(env))
        saved = app.conf.task_default_queue
        app.conf.task_default_queue = self.queue  # what the test sends goes there too
        try:
            worker.start()
            yield worker
        finally:
            worker.stop()
            app.conf.task_default_queue = saved
            with app.connection_for_write() as conn:
                for name in self.queues:
                    conn.default_channel.queue_purge(name)  # type: ignore[attr-defined]
