"""Live streams on an event loop (the ASGI server): one `Hub` per process reads the log for
every client of the process, and `serve` writes one client's frames.

The hub keeps each client's cursor (the last seq it was given or passed over). Every
SMALLVILLE_STREAM_POLL s, or at once when a client joins, it asks for the last seq of the
simulations it serves (one query) and reads on from the lowest cursor of each simulation
that moved (one query each, CHUNK events, again at once while a read comes back full). The reads run
in one thread of the hub's own, which returns its database connection to the pool after
each read: a thousand idle clients cost one query every SMALLVILLE_STREAM_POLL s, no thread and no
connection. A client whose frames pile up (MAX_PENDING unsent batches) is dropped: it
reconnects with Last-Event-ID and loses nothing. Nothing here writes, so a slow client
never holds up the engine.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from django.conf import settings
from django.db import DatabaseError, connection

from kernel.metrics import STREAM_CLIENTS
from kernel.pools import pool
from world.models import Event
from world.selectors import events_after, simulations_last_seq

from .streams import CHUNK, HEARTBEAT, RETRY, StreamSpec, frame

log = logging.getLogger(__name__)

MAX_PENDING = 1000
Send = Callable[[dict[str, Any]], Awaitable[None]]
Receive = Callable[[], Awaitable[dict[str, Any]]]


class Client:
    """One stream's place in the hub: its cursor and its frames not yet sent (None ends it)."""

    def __init__(self, spec: StreamSpec) -> None:
        self.spec = spec
        self.cursor = spec.after
        self.pending: asyncio.Queue[bytes | None] = asyncio.Queue()

    def take(self, events: list[Event], encoded: list[bytes] | None = None) -> None:
        """The frames of the events after the cursor, if `events` run on from it;
        `encoded` holds each event's frame (made once for every client of the hub)."""
        if not events or events[0].seq > self.cursor + 1 or events[-1].seq <= self.cursor:
            return  # read from a later cursor than this client's (it joined meanwhile)
        if encoded is None:
            encoded = [frame(event) for event in events]
        body = b"".join(
            data
            for event, data in zip(events, encoded, strict=True)
            if event.seq > self.cursor and self.spec.wants(event)
        )
        self.cursor = events[-1].seq
        if body:
            self.pending.put_nowait(body)
        if self.pending.qsize() > MAX_PENDING:
            self.end()

    def end(self) -> None:
        self.pending.put_nowait(None)


def _read(cursors: dict[int, int]) -> dict[int, list[Event] | None]:
    """For each simulation, the events after its cursor (None: the simulation is gone)."""
    try:
        heads = simulations_last_seq(ids=list(cursors))
        return {
            pk: (
                None
                if pk not in heads
                else events_after(simulation_id=pk, after=after, limit=CHUNK)
                if heads[pk] > after
                else []
            )
            for pk, after in cursors.items()
        }
    finally:
        if connection.settings_dict.get("OPTIONS", {}).get("pool"):
            connection.close()  # back to the pool until the next read


def _let_go() -> None:
    connection.close()  # in the reader's thread: `connection` is that thread's


class Hub:
    def __init__(self, *, poll: float) -> None:
        self.poll = poll
        self.clients: dict[int, set[Client]] = {}
        self.closing = asyncio.Event()  # set when the server stops: every stream ends
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._reader = pool("stream-hub")

    def join(self, spec: StreamSpec) -> Client:
        client = Client(spec)
        if self.closing.is_set():
            client.end()
            return client
        self.clients.setdefault(spec.simulation_id, set()).add(client)
        STREAM_CLIENTS.inc()
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())
        self._wake.set()
        return client

    def leave(self, client: Client) -> None:
        clients = self.clients.get(client.spec.simulation_id, set())
        if client in clients:
            clients.discard(client)
            STREAM_CLIENTS.dec()
        if not clients:
            self.clients.pop(client.spec.simulation_id, None)

    def close(self) -> None:
        self.closing.set()
        for clients in self.clients.values():
            for client in clients:
                client.end()

    async def _run(self) -> None:
        """Read and hand out until no client is left (`join` starts it again)."""
        loop = asyncio.get_running_loop()
        while self.clients and not self.closing.is_set():
            cursors = {pk: min(c.cursor for c in cs) for pk, cs in self.clients.items()}
            self._wake.clear()
            try:
                found = await loop.run_in_executor(self._reader, _read, cursors)
            except DatabaseError as error:  # the database is down: streams wait for it
                log.warning("stream hub: reading the log failed: %s", error)
                found = {}
                await asyncio.sleep(1)
            full = False
            for pk, events in found.items():
                encoded = None if events is None else [frame(event) for event in events]
                for client in list(self.clients.get(pk, ())):
                    if events is None:
                        client.end()
                    else:
                        client.take(events, encoded)
                full = full or (events is not None and len(events) == CHUNK)
            if not full:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), self.poll)
        # Nobody left: this thread's connection is let go (kept between reads without a pool).
        await loop.run_in_executor(self._reader, _let_go)

    async def idle(self) -> None:
        """Until the read loop has stopped (no client is left, or the hub is closed)."""
        if self._task is not None:
            await self._task


async def serve(
    hub: Hub, spec: StreamSpec, send: Send, receive: Receive, *, heartbeat: float | None = None
) -> None:
    """Send the frames of `spec` (the response has started) until the client goes, the
    simulation is deleted, the client falls too far behind, or the server stops."""
    heartbeat = settings.SMALLVILLE_STREAM_HEARTBEAT if heartbeat is None else heartbeat
    client = hub.join(spec)
    gone = asyncio.ensure_future(_disconnect(receive))
    try:
        await send({"type": "http.response.body", "body": RETRY, "more_body": True})
        while not gone.done():
            item = asyncio.ensure_future(client.pending.get())
            done, _ = await asyncio.wait(
                {item, gone}, timeout=heartbeat, return_when=asyncio.FIRST_COMPLETED
            )
            if item not in done:
                item.cancel()
                if not gone.done():
                    await send({"type": "http.response.body", "body": HEARTBEAT, "more_body": True})
                continue
            body = item.result()
            if body is None:
                break
            await send({"type": "http.response.body", "body": body, "more_body": True})
    finally:
        hub.leave(client)
        gone.cancel()
        await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _disconnect(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


_hub: Hub | None = None


def hub() -> Hub:
    """This process's hub (made on first use, in the server's event loop)."""
    global _hub
    if _hub is None:
        _hub = Hub(poll=settings.SMALLVILLE_STREAM_POLL)
    return _hub
