"""HTTP for the client, on the standard library: one connection per request (a client may
be shared by threads), JSON in and out, the token, and retries of 429 and 503 honouring
`Retry-After`, a bounded number of times."""

from __future__ import annotations

import email.utils
import http.client
import json
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode, urlsplit

from .errors import ConnectionFailed, api_error

RETRIED = frozenset({429, 503})  # throttled, or a backing service down: worth waiting for
USER_AGENT = "smallville-client/0.1"

Params = Mapping[str, str | int | float | None]


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """`Retry-After` as seconds to wait: delta-seconds or an HTTP date; None if absent or
    unreadable."""
    if value is None or not value.strip():
        return None
    value = value.strip()
    if value.isascii() and value.replace(".", "", 1).isdigit():  # delta-seconds
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    current = datetime.now(UTC).timestamp() if now is None else now
    return max(0.0, when.timestamp() - current)


class Transport:
    """Requests to one Smallville server.

    `max_attempts` bounds the tries of a request answered 429 or 503 (or refused a
    connection: nothing was sent); each wait is the answer's `Retry-After`, else a
    doubling backoff from `backoff` seconds. A wait longer than `max_retry_wait` is not
    made: the error is raised at once (a quota that resets tomorrow)."""

    def __init__(
        self,
        base_url: str,
        token: str | None,
        *,
        timeout: float = 30.0,
        max_attempts: int = 4,
        max_retry_wait: float = 60.0,
        backoff: float = 0.5,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"an http(s) URL of the server, not {base_url!r}")
        self.scheme = parts.scheme
        self.host = parts.hostname
        self.port = parts.port
        self.prefix = parts.path.rstrip("/")  # a server mounted under a path
        self.token = token
        self.timeout = timeout
        self.max_attempts = max(1, max_attempts)
        self.max_retry_wait = max_retry_wait
        self.backoff = backoff
        self.sleep = sleep

    def connection(self, timeout: float | None = None) -> http.client.HTTPConnection:
        kind = http.client.HTTPSConnection if self.scheme == "https" else http.client.HTTPConnection
        return kind(self.host, self.port, timeout=self.timeout if timeout is None else timeout)

    def headers(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        headers = {"Accept": "application/json", "User-Agent": USER_AGENT}
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        return {**headers, **(extra or {})}

    def target(self, path: str, params: Params | None = None) -> str:
        """The request target: the server's prefix, the path, the query (None dropped)."""
        if not path.startswith("/"):
            path = "/" + path
        query = {k: str(v) for k, v in (params or {}).items() if v is not None}
        return self.prefix + path + (("?" + urlencode(query)) if query else "")

    def request(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        params: Params | None = None,
    ) -> Any:
        """The answer's JSON (None for an empty one), or the API's error raised."""
        data = None if body is None else json.dumps(body).encode()
        extra = {"Content-Type": "application/json"} if data is not None else {}
        _, _, raw = self.send(
            method, self.target(path, params), data=data, headers=self.headers(extra)
        )
        return json.loads(raw) if raw else None

    def send(
        self, method: str, target: str, *, data: bytes | None, headers: Mapping[str, str]
    ) -> tuple[int, dict[str, str], bytes]:
        """One request with its retries: (status, headers lower-cased, body) of a 2xx."""
        attempt = 0
        while True:
            attempt += 1
            try:
                status, answer_headers, raw = self._once(method, target, data, headers)
            except ConnectionRefusedError as exc:  # nothing was sent: safe to try again
                if attempt >= self.max_attempts:
                    raise ConnectionFailed(f"{self.host}:{self.port} refused: {exc}") from exc
                self.sleep(self.backoff * 2 ** (attempt - 1))
                continue
            except (OSError, http.client.HTTPException) as exc:
                raise ConnectionFailed(f"{method} {target}: {exc!r}") from exc
            if 200 <= status < 300:
                return status, answer_headers, raw
            self.retry_or_raise(status, answer_headers, raw, attempt)

    def retry_or_raise(
        self, status: int, headers: Mapping[str, str], raw: bytes, attempt: int
    ) -> None:
        """Wait before the next attempt of a 429 or 503; raise the API's error otherwise,
        after the last attempt, or when the wait asked for is too long."""
        wait = retry_after_seconds(headers.get("retry-after"))
        if status in RETRIED and attempt < self.max_attempts:
            delay = self.backoff * 2 ** (attempt - 1) if wait is None else wait
            if delay <= self.max_retry_wait:
                self.sleep(delay)
                return
        raise api_error(status, raw, retry_after=wait)

    def _once(
        self, method: str, target: str, data: bytes | None, headers: Mapping[str, str]
    ) -> tuple[int, dict[str, str], bytes]:
        conn = self.connection()
        try:
            conn.request(method, target, body=data, headers=dict(headers))
            response = conn.getresponse()
            raw = response.read()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, raw
        finally:
            conn.close()
