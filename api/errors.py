"""One error format for every API response: {"error": {"code", "message", "detail"}}."""

from __future__ import annotations

from typing import Any

from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler


def _message(detail: Any) -> str:
    if isinstance(detail, dict):
        for key, value in detail.items():
            inner = _message(value)
            return inner if key in {"detail", "non_field_errors"} else f"{key}: {inner}"
    if isinstance(detail, list) and detail:
        return _message(detail[0])
    return str(detail)


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    detail = response.data
    code = getattr(exc, "default_code", "error")
    response.data = {
        "error": {"code": code, "message": _message(detail), "detail": detail},
    }
    return response
