"""The client's retries (clients/python/smallville_client/transport.py) against a tiny real
HTTP server that answers what each test tells it: a 429 or 503 is tried again after its
`Retry-After` (seconds or an HTTP date), a bounded number of times, and the error that
ends the tries carries the API's status, code and message; a wait longer than the
client's limit is not made. (The production server's own errors: test_client.py.)"""

from __future__ import annotations

import ast
import email.utils
import json
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from smallville_client import ApiError, Client, Throttled, Unavailable, retry_after_seconds

CLIENT = Path(__file__).resolve().parents[2] / "clients" / "python" / "smallville_client"
Answer = tuple[int, dict[str, str], bytes]


def _error(status: int, code: str, message: str, retry_after: str | None = None) -> Answer:
    problem = {"type": "about:blank", "title": "", "status": status, "detail": message}
    body = json.dumps({**problem, "code": code, "errors": []})
    headers = {"Content-Type": "application/problem+json"}
    if retry_after is not None:
        headers["Retry-After"] = retry_after
    return status, headers, body.encode()


OK: Answer = (200, {"Content-Type": "application/json"}, b'{"id": 7, "name": "ok"}')


class Scripted:
    """Answers in turn (then the last again), each request's arrival time kept."""

    def __init__(self, *answers: Answer) -> None:
        self.answers = list(answers)
        self.arrivals: list[tuple[float, str, str]] = []  # (time, method, Authorization)
        scripted = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                scripted.arrivals.append(
                    (time.monotonic(), self.command, self.headers.get("Authorization", ""))
                )
                status, headers, body = (
                    scripted.answers.pop(0) if len(scripted.answers) > 1 else scripted.answers[0]
                )
                self.send_response(status)
                for name, value in {**headers, "Content-Length": str(len(body))}.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

            do_POST = do_GET

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def gaps(self) -> list[float]:
        return [b[0] - a[0] for a, b in zip(self.arrivals, self.arrivals[1:], strict=False)]


@pytest.fixture
def scripted() -> Iterator[list[Scripted]]:
    made: list[Scripted] = []
    yield made
    for server in made:
        server.server.shutdown()
        server.server.server_close()


def test_a_503_and_a_429_are_tried_again_after_their_retry_after(
    scripted: list[Scripted],
) -> None:
    server = Scripted(
        _error(503, "database_unavailable", "The database is unavailable", retry_after="1"),
        _error(429, "throttled", "Request was throttled.", retry_after="1"),
        OK,
    )
    scripted.append(server)
    client = Client(server.url, "sv_key")
    assert client.simulation(7)["name"] == "ok"
    assert len(server.arrivals) == 3
    assert all(gap >= 1.0 for gap in server.gaps()), server.gaps()
    assert {auth for _, _, auth in server.arrivals} == {"Token sv_key"}


def test_the_tries_are_bounded_and_the_last_error_carries_status_code_and_message(
    scripted: list[Scripted],
) -> None:
    server = Scripted(_error(429, "throttled", "Expected available in 1 second.", "0"))
    scripted.append(server)
    client = Client(server.url, "sv_key", max_attempts=3)
    with pytest.raises(Throttled) as throttled:
        client.run(7, steps=10)
    assert len(server.arrivals) == 3 and {m for _, m, _ in server.arrivals} == {"POST"}
    error = throttled.value
    assert (error.status, error.code, error.retry_after) == (429, "throttled", 0.0)
    assert error.message == "Expected available in 1 second."


def test_a_wait_longer_than_the_limit_is_not_made(scripted: list[Scripted]) -> None:
    server = Scripted(_error(429, "throttled", "Your model calls of the day are spent.", "86400"))
    scripted.append(server)
    started = time.monotonic()
    with pytest.raises(Throttled) as throttled:
        Client(server.url, "sv_key", max_retry_wait=30).progress(7)
    assert time.monotonic() - started < 5 and len(server.arrivals) == 1
    assert throttled.value.retry_after == 86400.0


def test_retry_after_as_an_http_date_and_an_error_page_from_a_proxy(
    scripted: list[Scripted],
) -> None:
    soon = email.utils.formatdate(time.time() + 2, usegmt=True)
    server = Scripted(
        _error(503, "model_unavailable", "The language model failed", retry_after=soon),
        (502, {"Content-Type": "text/html"}, b"<html>Bad Gateway</html>"),
    )
    scripted.append(server)
    with pytest.raises(ApiError) as proxy:
        Client(server.url, "sv_key").simulations()
    assert len(server.arrivals) == 2 and server.gaps()[0] >= 0.5
    assert (proxy.value.status, proxy.value.code) == (502, "http_502")
    assert "Bad Gateway" in proxy.value.message
    assert not isinstance(proxy.value, Unavailable)
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0
    assert retry_after_seconds("soon") is None and retry_after_seconds("2") == 2.0


def test_the_client_imports_only_the_standard_library() -> None:
    """It installs anywhere (`pip install -e clients/python`), and never imports the
    service's own packages."""
    imported: set[str] = set()
    for path in CLIENT.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                imported |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
    assert imported and imported <= set(sys.stdlib_module_names) | {"__future__"}, imported
    assert (CLIENT / "py.typed").exists()
