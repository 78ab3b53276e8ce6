"""A simulation's live event stream (Server-Sent Events) as an iterator of events that
resumes by itself: a dropped connection (the server restarting, a proxy's timeout, a
network blip) is opened again with `Last-Event-ID`, the seq of the last event received,
so nothing is lost or repeated."""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
from collections.abc import Iterator
from types import TracebackType
from typing import cast

from .errors import StreamDisconnected
from .transport import Params, Transport
from .types import Event

MAX_RECONNECT_WAIT = 10.0  # seconds; the reconnect waits double from the server's `retry:`


class EventStream(Iterator[Event]):
    """Events of one simulation in seq order, each once, until `close()` (or the caller
    stops iterating). The server sends a heartbeat every 15 s, so `read_timeout` seconds
    of silence is a dead connection, resumed like a dropped one. After `max_reconnects`
    failed reconnects in a row it raises StreamDisconnected; an error answer (404,
    400, ...) is raised as the API's error, a 429 or 503 retried as any request is."""

    def __init__(
        self,
        transport: Transport,
        path: str,
        *,
        params: Params,
        after: int | None,
        read_timeout: float = 60.0,
        max_reconnects: int = 10,
    ) -> None:
        self.transport = transport
        self.target = transport.target(path, params)
        self.last_event_id = after
        self.read_timeout = read_timeout
        self.max_reconnects = max_reconnects
        self.reconnects = 0  # connections opened again after a drop, in all
        self._retry = 1.0  # seconds; the server's `retry:` field replaces it
        self._failures = 0  # failed (re)connects in a row
        self._refusals = 0  # 429 and 503 answers in a row
        self._conn: http.client.HTTPConnection | None = None
        self._response: http.client.HTTPResponse | None = None
        # The socket itself: the connection lets go of it once the answer is read from it.
        self._sock: socket.socket | None = None
        self._opened = False
        self._closed = False

    def __iter__(self) -> EventStream:
        return self

    def __next__(self) -> Event:
        while not self._closed:
            if self._response is None and not self._open():
                continue
            event = self._read()
            if event is not None:
                self._failures = 0
                return event
            self._drop()
            if not self._closed:
                self._failed("the stream ended")
        raise StopIteration

    def close(self) -> None:
        """Stop: the connection is closed (a read blocked in another thread ends)."""
        self._closed = True
        if self._sock is not None:
            with contextlib.suppress(OSError):  # closed already
                self._sock.shutdown(socket.SHUT_RDWR)
        if self._response is None:
            self._drop()

    def __enter__(self) -> EventStream:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
        self._drop()

    def _open(self) -> bool:
        extra = {"Accept": "text/event-stream", "Cache-Control": "no-cache"}
        if self.last_event_id is not None:  # also the first time: it is `after`
            extra["Last-Event-ID"] = str(self.last_event_id)
        conn = self.transport.connection(timeout=self.read_timeout)
        try:
            conn.connect()
            self._sock = conn.sock
            conn.request("GET", self.target, headers=self.transport.headers(extra))
            response = conn.getresponse()
        except (OSError, http.client.HTTPException) as exc:
            conn.close()
            self._sock = None
            self._failed(f"connecting: {exc!r}")
            return False
        if response.status != 200:
            raw = response.read()
            conn.close()
            self._sock = None
            self._refusals += 1
            headers = {k.lower(): v for k, v in response.getheaders()}
            self.transport.retry_or_raise(response.status, headers, raw, self._refusals)
            return False
        if self._opened:
            self.reconnects += 1
        self._opened, self._refusals = True, 0
        self._conn, self._response = conn, response
        return True

    def _read(self) -> Event | None:
        """The next event, or None when the connection ended or broke (an event cut
        short is dropped: it comes again after the resume)."""
        assert self._response is not None
        data: list[str] = []
        seq: int | None = None
        try:
            while True:
                line = self._response.readline()
                if not line:
                    return None
                text = line.decode("utf-8").rstrip("\r\n")
                if not text:  # the end of an event
                    if data:
                        event = cast(Event, json.loads("\n".join(data)))
                        self.last_event_id = seq if seq is not None else event["seq"]
                        return event
                    continue
                if text.startswith(":"):  # a comment: the heartbeat
                    continue
                name, _, value = text.partition(":")
                value = value.removeprefix(" ")
                if name == "data":
                    data.append(value)
                elif name == "id" and value.isdigit():
                    seq = int(value)
                elif name == "retry" and value.isdigit():
                    self._retry = int(value) / 1000
        except (OSError, http.client.HTTPException, ValueError):
            return None

    def _failed(self, why: str) -> None:
        self._failures += 1
        if self._failures > self.max_reconnects:
            raise StreamDisconnected(
                f"the stream could not be resumed after {self.max_reconnects} tries: {why}",
                self.last_event_id,
            )
        self.transport.sleep(min(self._retry * 2 ** (self._failures - 1), MAX_RECONNECT_WAIT))

    def _drop(self) -> None:
        if self._conn is not None:
            self._conn.close()
        self._conn, self._response, self._sock = None, None, None
