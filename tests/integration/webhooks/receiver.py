"""A webhook receiver for the tests: a real HTTP server on 127.0.0.1 that records each
request and answers with the status codes it is told, in turn (then 200); and what a
receiver checks of the attempts of one delivery."""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from integration.webhooks.signing import (
    HEADER_EVENT,
    HEADER_ID,
    LEGACY_SIGNATURE,
    LEGACY_TIMESTAMP,
    legacy_signature,
    signature_verify,
)

# A worker reaches the test's receiver on 127.0.0.1 and retries after 0.2 s, 0.4 s, ...
BACKOFF = 0.2
WORKER = {"SMALLVILLE_WEBHOOKS_ALLOW_PRIVATE": "1", "SMALLVILLE_WEBHOOKS_BACKOFF": str(BACKOFF)}


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]  # names in lower case
    body: bytes
    answered: int
    at: float  # time.monotonic() when it came


class Receiver:
    def __init__(self, answers: Iterable[int] = ()) -> None:
        self.answers = list(answers)
        self.received: list[Received] = []
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with receiver.lock:
                    code = receiver.answers.pop(0) if receiver.answers else 200
                    receiver.received.append(
                        Received(
                            self.path,
                            {k.lower(): v for k, v in self.headers.items()},
                            body,
                            code,
                            time.monotonic(),
                        )
                    )
                self.send_response(code)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hooks/smallville"

    def got(self) -> list[Received]:
        with self.lock:
            return list(self.received)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def verified_by_the_standard_library(secret: str, body: bytes, headers: dict[str, str]) -> bool:
    """A receiver's check with the Standard Webhooks library (`standardwebhooks`), as
    docs/integration.md shows it."""
    try:
        Webhook(secret).verify(body, headers, json_parse=False)
    except WebhookVerificationError:
        return False
    return True


def assert_attempts_of_one_delivery(
    got: list[Received], *, secret: str, event: str, delivery_id: str, backoff: float
) -> None:
    """What a receiver checks (docs/integration.md): each attempt is signed with the
    webhook's secret per Standard Webhooks (its library and ours agree; a changed body
    fails the check) and with the deprecated headers of before, is of `event`, and carries
    the one idempotency key and the same bytes as the first; and each retry came after its
    backoff (`backoff` seconds, doubling)."""
    assert got
    gaps = [later.at - earlier.at for earlier, later in itertools.pairwise(got)]
    assert all(gap >= backoff * 2**n for n, gap in enumerate(gaps)), gaps
    for request in got:
        headers = request.headers
        for body, valid in ((request.body, True), (request.body + b" ", False)):
            assert verified_by_the_standard_library(secret, body, headers) is valid
            assert signature_verify(secret=secret, body=body, headers=headers) is valid
        stamp = int(headers[LEGACY_TIMESTAMP])
        legacy = legacy_signature(secret=secret, timestamp=stamp, body=request.body)
        assert headers[LEGACY_SIGNATURE] == legacy
        assert headers[HEADER_EVENT] == event
        assert headers[HEADER_ID] == delivery_id
        assert request.body == got[0].body
        assert request.path == "/hooks/smallville"
