"""The ASGI application of the production server (smallville_project/asgi.py): the WSGI
application unchanged, run in a fixed pool of threads (as gunicorn's threaded workers ran
it: same middleware, chunked bodies, 503s, at most `threads` requests at once and so at
most that many database connections), and live streams served by the event loop.

A stream's request goes through the WSGI application like any other (authentication,
ownership, its parameters' 400s); its view finds a list at environ[HANDOFF], appends what
to stream and returns an empty body. The gateway then sends the response's headers and
hands the connection to integration.streamhub: the thread is free at once, and an idle
stream costs no thread.
"""

from __future__ import annotations

import asyncio
import io
import logging
import re
import sys
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from typing import Any

from django.urls import get_resolver

from integration.streamhub import hub, serve
from integration.streams import HANDOFF, StreamSpec
from kernel.limits import body_limit
from kernel.pools import pool

log = logging.getLogger(__name__)

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Coroutine[Any, Any, None]]
WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


# What uvicorn's HTTP/1.1 (h11) sends of a response's head (RFC 9110 5.1, 5.5, 15): a
# status it knows, a token for each name, visible characters with inner spaces or tabs for
# each value. Anything else it refuses mid-response and the client gets an empty reply.
_NAME = re.compile(rb"[-!#$%&'*+.^_`|~0-9a-zA-Z]+")
_VALUE = re.compile(rb"[\x21-\x7e\x80-\xff]+(?:[ \t]+[\x21-\x7e\x80-\xff]+)*|")
# Hop-by-hop headers are the server's to send, not a WSGI application's (PEP 3333).
_HOP_BY_HOP = frozenset(
    {b"connection", b"keep-alive", b"proxy-authenticate", b"proxy-authorization", b"te"}
    | {b"trailers", b"transfer-encoding", b"upgrade"}
)
_FAILED = b"Internal Server Error"


class ResponseRefused(ValueError):
    """A WSGI response the server cannot send as it is; the message says why (never a
    header's value: a cookie's may be a secret)."""


def response_start(status: str, headers: list[tuple[str, str]]) -> Message:
    """The ASGI start of a WSGI response: names and values stripped of surrounding
    whitespace (Django's WSGI handler gives a Set-Cookie value with a leading space) and
    lower-cased names; ResponseRefused for what HTTP/1.1 cannot carry."""
    code = status[:3]
    if not (code.isdigit() and 200 <= int(code) <= 599):
        raise ResponseRefused(f"status {status!r}")
    raw, length = [], None
    for name, value in headers:
        try:
            key = name.strip(" \t").lower().encode("latin-1")
            text = value.strip(" \t").encode("latin-1")
        except UnicodeEncodeError:
            raise ResponseRefused(f"header {name!r}: not latin-1") from None
        if not _NAME.fullmatch(key):
            raise ResponseRefused(f"header name {name!r}")
        if not _VALUE.fullmatch(text):
            raise ResponseRefused(f"the value of header {name!r}: a control character")
        if key == b"content-length" and not (text.isdigit() and length in (None, text)):
            raise ResponseRefused("a Content-Length that is not one number")
        length = text if key == b"content-length" else length
        if key not in _HOP_BY_HOP:
            raw.append((key, text))
    return {"type": "http.response.start", "status": int(code), "headers": raw}


class _Response:
    def __init__(self) -> None:
        self.start: Message = {}
        self.sent = False
        self.refused = False  # the application's response could not be sent: a 500 instead


class Gateway:
    def __init__(self, app: WSGIApp) -> None:
        self.app = app
        self.threads = pool("wsgi")  # SMALLVILLE_WEB_THREADS

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["type"] != "http":  # no websockets here
            return
        body = await _body(scope, receive)
        if body is None:
            return  # the client went before its body arrived
        environ = _environ(scope, body)
        handoff: list[StreamSpec] = []
        environ[HANDOFF] = handoff
        loop = asyncio.get_running_loop()
        response = _Response()
        await loop.run_in_executor(self.threads, self._run, environ, response, send, loop)
        if not response.sent:  # an empty body: the headers are still to send
            await send(response.start)
        if handoff and response.start["status"] == 200:
            await serve(hub(), handoff[0], send, receive)
        else:
            await send({"type": "http.response.body", "body": b"", "more_body": False})

    def _run(
        self,
        environ: dict[str, Any],
        response: _Response,
        send: Send,
        loop: asyncio.AbstractEventLoop,
    ) -> None:
        """In a thread of the pool: the WSGI call, its body sent as it comes."""

        def send_now(message: Message) -> None:
            asyncio.run_coroutine_threadsafe(send(message), loop).result()

        def start_response(
            status: str, headers: list[tuple[str, str]], exc_info: Any = None
        ) -> None:
            try:
                response.start = response_start(status, headers)
            except ResponseRefused as refused:
                # Not raised: the application's response is still closed (request_finished).
                where = f"{environ['REQUEST_METHOD']} {environ['PATH_INFO']}"
                log.error("%s: cannot send %s; answered 500", where, refused)
                response.start = _start_failed()
                response.refused = True

        try:
            result = self.app(environ, start_response)
        except Exception:  # Django answers its own errors; this is a bug in the gateway's app
            log.exception("the WSGI application raised")
            response.start, result = _start_failed(), [_FAILED]
        try:
            for chunk in [_FAILED] if response.refused else result:
                if not chunk:
                    continue
                if not response.sent:
                    send_now(response.start)
                    response.sent = True
                send_now({"type": "http.response.body", "body": chunk, "more_body": True})
        finally:
            close = getattr(result, "close", None)
            if close is not None:
                close()  # request_finished: the database connection goes back to the pool


def _start_failed() -> Message:
    headers = [(b"content-type", b"text/plain; charset=utf-8")]
    return {"type": "http.response.start", "status": 500, "headers": headers}


async def _body(scope: Scope, receive: Receive) -> bytes | None:
    """The request body, read no further than one byte past the body limit: a larger
    Content-Length is not read at all (the middleware answers 413 from the header), and a
    chunked body past it is cut there (smallville_project.chunked answers 413)."""
    limit = body_limit(scope["method"], scope["path"])
    for name, value in scope["headers"]:
        too_long = limit is not None and value.isdigit() and int(value) > limit
        if name == b"content-length" and too_long:
            return b""
    parts, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        part = message.get("body", b"")
        parts.append(part)
        size += len(part)
        if (limit is not None and size > limit) or not message.get("more_body"):
            return b"".join(parts)


def _environ(scope: Scope, body: bytes) -> dict[str, Any]:
    """The WSGI environ of an ASGI HTTP request (PEP 3333; as asgiref's WsgiToAsgi)."""
    server = scope.get("server") or ("localhost", 80)
    client = scope.get("client") or ("", 0)
    environ: dict[str, Any] = {
        "REQUEST_METHOD": scope["method"],
        "SCRIPT_NAME": scope.get("root_path", "").encode("utf-8").decode("latin-1"),
        "PATH_INFO": scope["path"].encode("utf-8").decode("latin-1"),
        "QUERY_STRING": scope["query_string"].decode("latin-1"),
        "SERVER_NAME": str(server[0]),
        "SERVER_PORT": str(server[1] or 80),
        "SERVER_PROTOCOL": f"HTTP/{scope.get('http_version', '1.1')}",
        "REMOTE_ADDR": str(client[0]),
        "REMOTE_PORT": str(client[1]),
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": scope.get("scheme", "http"),
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
        # The server decoded any chunked body: smallville_project.chunked may read it.
        "wsgi.input_terminated": True,
    }
    for raw_name, raw_value in scope["headers"]:
        name = raw_name.decode("latin-1").upper().replace("-", "_")
        value = raw_value.decode("latin-1")
        key = name if name in ("CONTENT_LENGTH", "CONTENT_TYPE") else f"HTTP_{name}"
        environ[key] = f"{environ[key]},{value}" if key in environ else value
    return environ


async def _lifespan(receive: Receive, send: Send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            # Every view imported now, not by the first request (about 5 s on 2 busy cores).
            get_resolver().url_patterns  # noqa: B018
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            hub().close()
            await send({"type": "lifespan.shutdown.complete"})
            return
