"""A size limit on API request bodies, JSON included (Django's own limit covers forms)."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from .errors import error_json


class RequestSizeLimitMiddleware:
    """Refuse an /api/ request whose body is over DATA_UPLOAD_MAX_MEMORY_SIZE with a 413
    in the error format, before anything reads it."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path.startswith("/api/"):
            limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
            try:
                length = int(request.META.get("CONTENT_LENGTH") or 0)
            except ValueError:
                return error_json(400, "invalid_length", "Content-Length is not a number.")
            if limit is not None and length > limit:
                return error_json(
                    413,
                    "request_too_large",
                    f"The request body is {length} bytes; the limit is {limit}.",
                    {"limit": limit, "length": length},
                )
        return self.get_response(request)
