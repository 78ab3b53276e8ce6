"""One error format for every API response: {"error": {"code", "message", "detail"}}."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ObjectDoesNotExist
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404
from drf_spectacular.utils import OpenApiResponse
from rest_framework import exceptions, serializers
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


def _as_api_exception(exc: Exception) -> Exception:
    """Django's not-found and forbidden as DRF exceptions, so they carry a code."""
    if isinstance(exc, Http404 | ObjectDoesNotExist):
        return exceptions.NotFound()
    if isinstance(exc, DjangoPermissionDenied):
        return exceptions.PermissionDenied()
    return exc


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    exc = _as_api_exception(exc)
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    detail = response.data
    code = getattr(exc, "default_code", "error")
    response.data = {
        "error": {"code": code, "message": _message(detail), "detail": detail},
    }
    return response


class ErrorBodySerializer(serializers.Serializer[Any]):
    code = serializers.CharField(help_text="machine-readable, e.g. invalid, not_found")
    message = serializers.CharField(help_text="the first problem, for people")
    detail = serializers.JSONField(help_text="everything DRF reported, e.g. errors by field")


class ErrorSerializer(serializers.Serializer[Any]):
    """The body of every 4xx response of the API (for the schema only)."""

    error = ErrorBodySerializer()


def error_responses(*statuses: int) -> dict[int, OpenApiResponse]:
    """Schema entries for the error statuses an endpoint can return."""
    described = {
        400: "Malformed request (bad JSON, wrong types, unknown fields or values).",
        401: "Not authenticated: send `Authorization: Token <key>` or a session cookie.",
        404: "Not found, or not yours.",
        409: "The simulation's status does not allow it (e.g. it is already running).",
        429: "Too many requests: slow down.",
    }
    return {
        status: OpenApiResponse(response=ErrorSerializer, description=described[status])
        for status in statuses
    }
