"""What the client raises: the API's errors (RFC 9457 problems) with their status, code,
message and fields at fault, a lost connection, and a wait that ran out of time."""

from __future__ import annotations

import json
from typing import Any, NamedTuple


class SmallvilleError(Exception):
    """Everything this client raises derives from it."""


class FieldError(NamedTuple):
    """One field at fault in a 400: its path (`residents[0].seed_memories[2]`, indexes
    0-based; None for the request as a whole) and what is wrong with it."""

    field: str | None
    message: str


class ApiError(SmallvilleError):
    """An error answer of the API: an RFC 9457 problem (`application/problem+json`).

    `status` is the HTTP status, `code` the API's machine-readable kind (`invalid`,
    `not_found`, `throttled`, ...), `message` the problem for people (the problem's
    `detail`; a 400's names each field: `steps: Ensure this value is greater than or equal
    to 1.`), `errors` every field at fault (a 400's; FieldError), `problem` the whole body,
    `retry_after` the seconds the API asked to wait (429, 503), if it did."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        errors: list[FieldError] | None = None,
        *,
        retry_after: float | None = None,
        problem: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors or []
        self.problem = problem or {}
        self.retry_after = retry_after

    @property
    def fields(self) -> list[str]:
        """The paths of the request's fields at fault (a 400's), else []."""
        return [error.field for error in self.errors if error.field is not None]


class BadRequest(ApiError):
    """400: a field at fault (`fields`), nothing written."""


class Unauthorized(ApiError):
    """401: no token, or a wrong or revoked one."""


class Forbidden(ApiError):
    """403: e.g. a shipped base is read-only."""


class NotFound(ApiError):
    """404: not found, or not yours."""


class Conflict(ApiError):
    """409: the simulation's state does not allow it (e.g. it is already running)."""


class Throttled(ApiError):
    """429 after the client's retries: slow down (`retry_after`)."""


class Unavailable(ApiError):
    """503 after the client's retries: a model, the database or the cache is down."""


_BY_STATUS: dict[int, type[ApiError]] = {
    400: BadRequest,
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    429: Throttled,
    503: Unavailable,
}


class ConnectionFailed(SmallvilleError, ConnectionError):
    """The server could not be reached, or the connection broke before an answer."""


class StreamDisconnected(ConnectionFailed):
    """A stream could not be resumed after its reconnect attempts; `last_event_id` is the
    seq of the last event received (resume from it later with `after=`)."""

    def __init__(self, message: str, last_event_id: int | None) -> None:
        super().__init__(message)
        self.last_event_id = last_event_id


class WaitTimeout(SmallvilleError, TimeoutError):
    """A wait ran out of time; `last` is what was last seen (a progress, an evaluation)."""

    def __init__(self, message: str, last: Any) -> None:
        super().__init__(message)
        self.last = last


def api_error(status: int, body: bytes, retry_after: float | None = None) -> ApiError:
    """The error of an answer: the API's problem, or, from something in front of the API
    (a proxy's 502 page), the status and the start of its text."""
    problem: dict[str, Any] = {}
    try:
        problem = json.loads(body)
        code, message = str(problem["code"]), str(problem["detail"])
        errors = [FieldError(e["field"], str(e["message"])) for e in problem.get("errors", [])]
    except (ValueError, KeyError, TypeError):
        code, message = f"http_{status}", body[:200].decode(errors="replace")
        errors, problem = [], {}
    kind = _BY_STATUS.get(status, ApiError)
    return kind(
        status, code, message or f"HTTP {status}", errors, retry_after=retry_after, problem=problem
    )
