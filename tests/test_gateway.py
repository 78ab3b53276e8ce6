"""The production server's gateway (smallville_project/gateway.py) under uvicorn's HTTP/1.1,
as its worker runs it, over real HTTP: what a WSGI application may put in its response's
head reaches the client, tidied (Django's Set-Cookie value comes with a leading space), and
what HTTP/1.1 cannot carry is a logged 500, never an empty reply."""

from __future__ import annotations

import http.client
import logging
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import uvicorn

from smallville_project.gateway import Gateway
from tests.chaos.processes import free_port

Headers = list[tuple[str, str]]


class Application:
    """A WSGI application answering `status` and `headers` with a body of its own; it
    counts how often its response was closed (Django ends a request there)."""

    def __init__(self) -> None:
        self.status = "200 OK"
        self.headers: Headers = []
        self.closed = 0

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        start_response(self.status, [("Content-Type", "text/plain"), *self.headers])
        return _Body(self, [b"the pear orchard ", b"opens at nine"])


class _Body(list[bytes]):
    def __init__(self, app: Application, chunks: list[bytes]) -> None:
        super().__init__(chunks)
        self.app = app

    def close(self) -> None:
        self.app.closed += 1


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[Application, int]]:
    app = Application()
    port = free_port()
    config = uvicorn.Config(
        Gateway(app),
        host="127.0.0.1",
        port=port,
        http="h11",  # as smallville_project.web_worker
        loop="asyncio",
        lifespan="off",
        log_level="warning",
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    yield app, port
    server.should_exit = True
    thread.join(timeout=10)


def _get(port: int) -> tuple[int, Headers, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", "/orchard/")
        response = conn.getresponse()
        return response.status, response.getheaders(), response.read()
    finally:
        conn.close()


def _answer(served: tuple[Application, int], status: str, headers: Headers) -> Any:
    app, port = served
    app.status, app.headers, app.closed = status, headers, 0
    return _get(port)


def test_header_names_and_values_are_stripped(served: tuple[Application, int]) -> None:
    cookie = "picker=7f3a; Path=/; SameSite=Lax"
    status, headers, body = _answer(
        served, "200 OK", [("Set-Cookie", f" {cookie}"), (" X-Harvest\t", "\tpears, quinces ")]
    )
    assert status == 200
    assert body == b"the pear orchard opens at nine"
    assert ("set-cookie", cookie) in headers
    assert ("x-harvest", "pears, quinces") in headers
    assert served[0].closed == 1


def test_hop_by_hop_headers_are_the_servers(served: tuple[Application, int]) -> None:
    status, headers, body = _answer(
        served, "200 OK", [("Transfer-Encoding", "gzip"), ("Upgrade", "h2c"), ("X-Row", "3")]
    )
    assert status == 200 and body == b"the pear orchard opens at nine"
    names = {name for name, _ in headers}
    assert "upgrade" not in names and ("x-row", "3") in headers


@pytest.mark.parametrize(
    ("status", "headers"),
    [
        ("200 OK", [("X-Note", "first line\r\nX-Injected: yes")]),
        ("200 OK", [("X-Note", "ends with a newline\n")]),
        ("200 OK", [("X-Bell", "ring\x07")]),
        ("200 OK", [("X Note", "a space in the name")]),
        ("200 OK", [("X-Note", "caf\u00e9 \u2615")]),
        ("200 OK", [("Content-Length", "nine")]),
        ("200 OK", [("Content-Length", "29"), ("Content-Length", "30")]),
        ("99 Too Soon", []),
        ("OK", []),
    ],
)
def test_what_http_cannot_carry_is_a_logged_500(
    served: tuple[Application, int],
    status: str,
    headers: Headers,
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.ERROR, logger="smallville_project.gateway"):
        answered, _, body = _answer(served, status, headers)
    assert (answered, body) == (500, b"Internal Server Error")
    assert any("GET /orchard/: cannot send" in r.getMessage() for r in caplog.records)
    assert served[0].closed == 1  # the application's request still ended
    # The server goes on serving.
    assert _answer(served, "200 OK", [])[0] == 200
