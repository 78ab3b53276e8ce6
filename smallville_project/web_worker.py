"""The production server's worker (gunicorn_conf.worker_class): uvicorn's gunicorn worker
running smallville_project.asgi, with what the threaded workers did before kept.

- The client's address is the peer's, as gunicorn gave it (throttles count by it): no
  X-Forwarded-For rewriting.
- On SIGTERM (or Ctrl-C) every live stream ends at once, so the worker stops within a
  second instead of waiting graceful_timeout for clients that never hang up (they
  reconnect with Last-Event-ID); requests in flight get graceful_timeout to finish.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any, ClassVar

from gunicorn.arbiter import Arbiter
from uvicorn.server import Server
from uvicorn_worker import UvicornWorker


class Worker(UvicornWorker):
    CONFIG_KWARGS: ClassVar[dict[str, Any]] = {
        "loop": "asyncio",
        "http": "h11",
        "lifespan": "on",
        "proxy_headers": False,
    }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.config.timeout_graceful_shutdown = self.cfg.graceful_timeout

    async def _serve(self) -> None:
        self.config.app = self.wsgi
        server = Server(config=self.config)
        self._install_sigquit_handler()
        watcher = asyncio.get_running_loop().create_task(_end_streams_on_exit(server))
        await server.serve(sockets=self.sockets)
        watcher.cancel()
        if not server.started:
            sys.exit(Arbiter.WORKER_BOOT_ERROR)


async def _end_streams_on_exit(server: Server) -> None:
    from integration.streamhub import hub  # the app (and so Django) is loaded by now

    while not server.should_exit:
        await asyncio.sleep(0.2)
    hub().close()
