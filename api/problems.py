"""The API's one error format: RFC 9457 problem details (`application/problem+json`).

    {"type": "about:blank", "title": "Bad Request", "status": 400,
     "detail": "2 problems: name: ...; rows[1]: ...", "code": "invalid",
     "errors": [{"field": "name", "message": "..."}, {"field": "rows[1]", "message": "..."}]}

`title` is the status's phrase, `detail` the problem for people, `code` what kind of problem
it is for programs (`invalid`, `not_found`, `throttled`, `budget_exhausted`, ...), `errors`
every field at fault (a path, world.fieldpath; null for the request as a whole), empty but
for a 400. Kept free of the rest of the API: the WSGI wrapper (smallville_project.chunked)
answers with it before Django runs."""

from __future__ import annotations

import json
from collections.abc import Iterable
from http import HTTPStatus
from typing import Any

from django.http import HttpResponse

MEDIA_TYPE = "application/problem+json"
# No URI of our own per kind: a problem is its status, and `code` says which kind.
TYPE = "about:blank"

FieldError = tuple[str | None, str]  # (the field's path, or None for the whole request; why)


def problem_title(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


# At most this many of a 400's problems are said in its `detail` (all are in `errors`).
DETAIL_PROBLEMS = 5


def problem_detail(errors: list[FieldError]) -> str:
    """The `detail` of a 400 for people: its problems, each after its field."""
    said = [f"{field}: {message}" if field else message for field, message in errors]
    if len(said) == 1:
        return said[0]
    more = len(said) - DETAIL_PROBLEMS
    tail = f"; and {more} more (see errors)" if more > 0 else ""
    return f"{len(said)} problems: " + "; ".join(said[:DETAIL_PROBLEMS]) + tail


def problem_body(
    status: int,
    code: str,
    detail: str,
    errors: Iterable[FieldError] = (),
    **extensions: Any,
) -> dict[str, Any]:
    """The problem's JSON object; `extensions` are further members (e.g. `suggestions`)."""
    return {
        "type": TYPE,
        "title": problem_title(status),
        "status": status,
        "detail": detail,
        "code": code,
        "errors": [{"field": field, "message": message} for field, message in errors],
        **extensions,
    }


def problem_bytes(status: int, code: str, detail: str, **extensions: Any) -> bytes:
    return json.dumps(problem_body(status, code, detail, **extensions)).encode()


def problem_response(
    status: int, code: str, detail: str, errors: Iterable[FieldError] = (), **extensions: Any
) -> HttpResponse:
    """A problem from outside DRF (middleware, Django's handlers)."""
    body = problem_body(status, code, detail, errors, **extensions)
    return HttpResponse(json.dumps(body), status=status, content_type=MEDIA_TYPE)
