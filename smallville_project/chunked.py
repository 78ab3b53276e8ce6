"""Request bodies sent in chunks (Transfer-Encoding: chunked, no Content-Length): read
before Django sees them, or refused.

Django reads CONTENT_LENGTH bytes of a body, so a chunked one was read as empty: a fork
asked for at step 5 forked at the current step and answered 201. A server that decodes
chunks for its application (gunicorn: `wsgi.input_terminated`) hands us the decoded
body, read here up to the body limit (DATA_UPLOAD_MAX_MEMORY_SIZE; past it a 413) and
passed on with its length. A server that does not (the development server) gets 411
Length Required: the body cannot be read there.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable
from typing import Any

from api.problems import MEDIA_TYPE, problem_bytes
from kernel.limits import body_limit

StartResponse = Callable[..., Any]
WSGIApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]


class ChunkedBodies:
    def __init__(self, app: WSGIApp) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        chunked = "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
        if chunked and not environ.get("CONTENT_LENGTH"):
            if not environ.get("wsgi.input_terminated"):
                message = "A chunked body cannot be read here: send Content-Length."
                return _refuse(environ, start_response, 411, "length_required", message)
            limit = body_limit(environ.get("REQUEST_METHOD", "GET"), environ.get("PATH_INFO", ""))
            stream = environ["wsgi.input"]
            body = stream.read() if limit is None else stream.read(limit + 1)
            if limit is not None and len(body) > limit:
                message = f"The request body is over the limit of {limit} bytes."
                return _refuse(environ, start_response, 413, "request_too_large", message)
            environ["wsgi.input"] = io.BytesIO(body)
            environ["CONTENT_LENGTH"] = str(len(body))
        return self.app(environ, start_response)


def _refuse(
    environ: dict[str, Any], start_response: StartResponse, status: int, code: str, message: str
) -> list[bytes]:
    """A problem (api.problems) under /api/, text elsewhere."""
    if str(environ.get("PATH_INFO", "")).startswith("/api/"):
        body, kind = problem_bytes(status, code, message), MEDIA_TYPE
    else:
        body, kind = message.encode(), "text/plain; charset=utf-8"
    reason = {411: "Length Required", 413: "Content Too Large"}[status]
    start_response(
        f"{status} {reason}", [("Content-Type", kind), ("Content-Length", str(len(body)))]
    )
    return [body]
