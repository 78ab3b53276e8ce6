"""Checks of every request before a view: the body's size, text no database can hold in the
path or query string; and a 503 instead of a 500 when the database or cache is down."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from kernel.limits import body_limit

from .errors import unavailable_response
from .parsers import unsafe_text
from .problems import problem_response


class RequestSizeLimitMiddleware:
    """Refuse an /api/ request whose body is over its route's limit (DATA_UPLOAD_MAX_MEMORY_SIZE,
    larger for a town file: kernel.limits) with a 413 problem,
    before anything reads it."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path.startswith("/api/"):
            limit = body_limit(request.method or "GET", request.path)
            try:
                length = int(request.META.get("CONTENT_LENGTH") or 0)
            except ValueError:
                message = "Content-Length is not a number."
                return problem_response(400, "invalid_length", message, [(None, message)])
            if limit is not None and length > limit:
                return problem_response(
                    413,
                    "request_too_large",
                    f"The request body is {length} bytes; the limit is {limit}.",
                    limit=limit,
                    length=length,
                )
        return self.get_response(request)


class UnsafeTextMiddleware:
    """Refuse an /api/ request whose path or query string holds a NUL or an unpaired
    surrogate (no database text can) with a 400 problem; the body is checked
    by the parsers (api.parsers)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path.startswith("/api/"):
            if unsafe_text(request.path):
                return _unsafe("path")
            for key, values in request.GET.lists():
                if unsafe_text(key) or any(unsafe_text(value) for value in values):
                    return _unsafe(f"query parameter {key!r}"[:100], key[:100])
        return self.get_response(request)


def _unsafe(where: str, field: str | None = None) -> HttpResponse:
    message = f"The {where} must not contain NUL or unpaired surrogates."
    return problem_response(400, "invalid_characters", message, [(field, message)])


class ServiceUnavailableMiddleware:
    """A 503 with Retry-After, not a 500, when the database or the cache is down, for every
    view (the admin's too; DRF views answer the same through api.errors.exception_handler)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        return unavailable_response(request, exception)
