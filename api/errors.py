"""The API's errors: their one format, and the one mapping of the domain's errors to them.

Every error response is a problem (RFC 9457, api.problems): DRF's through
`exception_handler`, Django's 404 and 500 and the middleware's through `problem_response`.
`api_error` maps what the services raise (runs, controls, paths, bases, retrieval, models)
to a status, code and message; a 400 lists every field at fault."""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from django.core.exceptions import ObjectDoesNotExist
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.db import InterfaceError as DatabaseInterfaceError
from django.db import OperationalError as DatabaseOperationalError
from django.http import Http404, HttpRequest, HttpResponse
from django.views import defaults
from drf_spectacular.utils import OpenApiResponse
from kombu.exceptions import OperationalError as BrokerError
from redis.exceptions import RedisError
from rest_framework import exceptions, serializers, status
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from agents.bases import BaseInvalid, UnknownBase
from agents.config import ConfigInvalid
from llm.errors import BudgetExhausted, ModelCallFailed, ModelOutputInvalid, QuotaExceeded
from memories.embeddings import EmbeddingError
from memories.selectors import RetrievalConfigError
from runtime.controls import ControlConflict, ControlRefused, NotYours
from runtime.engine import RunConflict, RunRefused
from world.clock import SimTimeOutOfReach
from world.fieldpath import path_join
from world.gridtown import TownInvalid
from world.paths import NotWalkable, UnknownAddress, Unreachable
from world.townbuild import TownInUse

from .problems import (
    MEDIA_TYPE,
    FieldError,
    problem_body,
    problem_detail,
    problem_response,
    problem_title,
)


def _as_api_exception(exc: Exception) -> Exception:
    """Django's not-found and forbidden as DRF exceptions, so they carry a code."""
    if isinstance(exc, Http404 | ObjectDoesNotExist):
        return exceptions.NotFound()
    if isinstance(exc, DjangoPermissionDenied):
        return exceptions.PermissionDenied()
    return exc


# How long a client should wait before retrying when a backing service is down.
RETRY_AFTER_SECONDS = 5


class ServiceDown(exceptions.APIException):
    """A backing service (database, cache, broker) is down: retry after `wait` seconds."""

    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    wait = RETRY_AFTER_SECONDS


class DatabaseUnavailable(ServiceDown):
    default_detail = "The database is unavailable; try again shortly."
    default_code = "database_unavailable"


class CacheUnavailable(ServiceDown):
    default_detail = "The cache (Redis) is unavailable; try again shortly."
    default_code = "cache_unavailable"


class BrokerUnavailable(ServiceDown):
    default_detail = "The task broker (Redis) is unavailable; try again shortly."
    default_code = "broker_unavailable"


def service_down(exc: BaseException) -> ServiceDown | None:
    """The 503 for an error of a backing service that is down, or None for any other."""
    match exc:
        case DatabaseOperationalError() | DatabaseInterfaceError():
            return DatabaseUnavailable()
        case BrokerError():
            return BrokerUnavailable()
        case RedisError():  # the cache (throttle counts); the broker's is a BrokerError
            return CacheUnavailable()
    return None


def unavailable_response(request: HttpRequest, exc: BaseException) -> HttpResponse | None:
    """Outside DRF (middleware, the admin): a 503 with Retry-After for a backing service
    that is down, as a problem under /api/ and as text elsewhere; None otherwise."""
    down = service_down(exc)
    if down is None:
        return None
    message = str(down.detail)
    response: HttpResponse
    if _is_api(request):
        response = problem_response(503, str(down.default_code), message)
    else:
        response = HttpResponse(message, status=503, content_type="text/plain; charset=utf-8")
    response["Retry-After"] = str(down.wait)
    return response


NON_FIELD = "non_field_errors"


class FieldErrors(exceptions.ValidationError):
    """A 400 whose fields at fault are already paths (a domain check's `errors`, keyed by
    world.fieldpath), with further members of the problem (`extensions`)."""

    def __init__(self, errors: Mapping[str, Sequence[str]], **extensions: Any) -> None:
        self.field_errors: list[FieldError] = [
            (None if field in ("", NON_FIELD) else field, str(message))
            for field, messages in errors.items()
            for message in messages
        ]
        self.extensions = extensions
        super().__init__({field or NON_FIELD: list(messages) for field, messages in errors.items()})


def field_errors(detail: Any, path: str = "") -> Iterator[FieldError]:
    """DRF's errors of a 400 (nested by field, list index and dict key) as (path, message)."""
    if isinstance(detail, Mapping):
        for key, value in detail.items():
            if key in (NON_FIELD, "detail"):
                yield from field_errors(value, path)
            elif isinstance(key, int):
                yield from field_errors(value, f"{path}[{key}]")
            else:  # a name, or a path a check made (world.fieldpath): joined as it is
                yield from field_errors(value, path_join(path, str(key)))
    elif isinstance(detail, list | tuple):
        for index, item in enumerate(detail):
            yield from field_errors(item, f"{path}[{index}]" if _nested(item) else path)
    else:
        yield (path or None, str(detail))


def _nested(item: Any) -> bool:
    return isinstance(item, Mapping | list | tuple)


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's errors (and the domain's, Django's not-found and forbidden, a backing service
    down) as problems: the status and headers DRF chose (Retry-After, WWW-Authenticate),
    a 400's every field at fault in `errors`."""
    exc = service_down(exc) or _as_api_exception(exc)
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    code = str(getattr(exc, "default_code", "error"))
    errors: list[FieldError] = []
    extensions: dict[str, Any] = {}
    if isinstance(exc, FieldErrors):
        errors, extensions = exc.field_errors, exc.extensions
    elif isinstance(exc, exceptions.ValidationError):
        errors = list(field_errors(response.data))
    if response.status_code == 400 and not errors:  # e.g. a body that cannot be parsed
        message = _said(response.data) or problem_title(400)
        errors = [(getattr(exc, "field", None), message)]
    detail = problem_detail(errors) if errors else _said(response.data)
    response.data = problem_body(
        response.status_code,
        code,
        detail or problem_title(response.status_code),
        errors,
        **extensions,
    )
    request = context.get("request")
    if request is not None:  # whatever the client accepts, a problem is problem+json
        request.accepted_renderer = ProblemRenderer()
        request.accepted_media_type = MEDIA_TYPE
    return response


def _said(data: Any) -> str:
    """DRF's message of an error that is not a validation's ({"detail": ...})."""
    if isinstance(data, Mapping) and "detail" in data:
        return str(data["detail"])
    return "; ".join(message for _, message in field_errors(data))


class ProblemRenderer(JSONRenderer):
    media_type = MEDIA_TYPE
    format = "problem+json"


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def handler400(request: HttpRequest, exception: Exception) -> HttpResponse:
    """A request Django itself refuses (a suspicious one: a bad Host header, too many
    fields) is a 400 problem under /api/; elsewhere Django's page."""
    if _is_api(request):
        message = "The request is malformed."
        return problem_response(400, "bad_request", message, [(None, message)])
    return defaults.bad_request(request, exception)


def handler403(request: HttpRequest, exception: Exception) -> HttpResponse:
    """Django's forbidden outside DRF (CSRF, a PermissionDenied of a plain view) is a 403
    problem under /api/; elsewhere Django's page."""
    if _is_api(request):
        return problem_response(403, "permission_denied", "You may not do this.")
    return defaults.permission_denied(request, exception)


def handler404(request: HttpRequest, exception: Exception) -> HttpResponse:
    """An unknown URL under /api/ is a 404 problem; elsewhere Django's page."""
    if _is_api(request):
        return problem_response(404, "not_found", "Not found.")
    return defaults.page_not_found(request, exception)


def handler500(request: HttpRequest) -> HttpResponse:
    """An unexpected error under /api/ is a 500 problem; elsewhere Django's. A
    backing service that is down (raised where no middleware saw it) is a 503."""
    exc = sys.exc_info()[1]
    unavailable = unavailable_response(request, exc) if exc is not None else None
    if unavailable is not None:
        return unavailable
    if _is_api(request):
        return problem_response(500, "server_error", "The server failed; the error is logged.")
    return defaults.server_error(request)


class Conflict(exceptions.APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "The simulation's status does not allow this."
    default_code = "conflict"


class BudgetSpent(Conflict):
    default_detail = "The simulation has used its model-call budget."
    default_code = "budget_exhausted"


class ModelUnavailable(exceptions.APIException):
    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_detail = "The language model failed; try again later."
    default_code = "model_unavailable"


class ModelOutputUnusable(exceptions.APIException):
    status_code = status.HTTP_502_BAD_GATEWAY
    default_detail = "The language model's answer was unusable; try again."
    default_code = "model_output_invalid"


class EmbeddingUnavailable(exceptions.APIException):
    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_detail = "The query could not be embedded."
    default_code = "embedding_unavailable"


def api_error(
    exc: Exception,
    *,
    field: str = "address",
    fields: Mapping[str, str] | None = None,
    value_errors: bool = False,
) -> exceptions.APIException | None:
    """The API's error for a domain error, or None for one that is not the caller's (a 500).
    An address problem is reported under `field`; an unknown address under the field
    `fields` names for it (else `field`), with the closest known ones in `suggestions`.
    With `value_errors`, any other ValueError (a service's check of a value the caller
    gave) is a 400 under `field`."""
    message = str(exc)
    match exc:
        case UnknownAddress():
            name = (fields or {}).get(exc.address, field)
            return FieldErrors({name: [message]}, suggestions=exc.suggestions)
        case NotWalkable() | Unreachable():
            return exceptions.ValidationError({field: [message]})
        case NotYours():  # a resident someone else plays
            return exceptions.PermissionDenied(message)
        case RunConflict() | ControlConflict():  # the simulation's or resident's state
            return Conflict(message)
        case ControlRefused() if exc.field:
            return exceptions.ValidationError({exc.field: [message]})
        case RunRefused() | ControlRefused():
            return exceptions.ValidationError([message])
        case UnknownBase():
            return exceptions.ValidationError({"base": [message]})
        case BaseInvalid():  # a base file breaks its schema or its town: errors by field
            return FieldErrors(exc.errors)
        case TownInvalid():  # a town file breaks its format: errors by field
            return FieldErrors(exc.errors)
        case TownInUse():
            return Conflict(message)
        case ConfigInvalid():  # the config breaks its schema: errors by field
            return FieldErrors(exc.errors)
        case SimTimeOutOfReach():
            return exceptions.ValidationError({"start_time": [message]})
        case RetrievalConfigError():  # bad retrieval weights in the simulation's config
            return exceptions.ValidationError({"config": [message]})
        case BudgetExhausted():  # model calls, or a billed embedding server's queries
            return BudgetSpent(message)
        case QuotaExceeded():  # the user's model calls of the day
            return exceptions.Throttled(wait=exc.retry_after, detail=message)
        case EmbeddingError():
            return EmbeddingUnavailable(message)
        case ModelOutputInvalid():  # e.g. an answer longer than its field allows
            return ModelOutputUnusable(message)
        case ModelCallFailed():
            return ModelUnavailable(message)
        case ValueError() if value_errors:
            return exceptions.ValidationError({field: [message]})
    return None


@contextmanager
def domain_errors(
    field: str = "address", fields: Mapping[str, str] | None = None, *, value_errors: bool = False
) -> Iterator[None]:
    """Raise the domain errors of the block as the API's (`api_error`); others pass on."""
    try:
        yield
    except Exception as exc:
        error = api_error(exc, field=field, fields=fields, value_errors=value_errors)
        if error is None:
            raise
        raise error from exc


class FieldErrorSerializer(serializers.Serializer[Any]):
    field = serializers.CharField(
        allow_null=True,
        help_text="the field's path, indexes 0-based: `residents[0].seed_memories[2]`, "
        '`legend["#"]`; null for the request as a whole (e.g. a body that is not JSON)',
    )
    message = serializers.CharField(help_text="what is wrong with it, for people")


class ProblemSerializer(serializers.Serializer[Any]):
    """RFC 9457 problem details: the body of every error response of the API,
    `application/problem+json` (for the schema only)."""

    type = serializers.CharField(help_text="always `about:blank`: `code` says the kind")
    title = serializers.CharField(help_text="the status's phrase, e.g. `Bad Request`")
    status = serializers.IntegerField(help_text="the HTTP status")
    detail = serializers.CharField(help_text="what went wrong, for people")
    code = serializers.CharField(
        help_text="the kind of problem, for programs: e.g. invalid, parse_error, not_found, "
        "throttled, conflict, budget_exhausted"
    )
    # The metaclass takes declared fields off the class: no clash with Serializer.errors.
    errors = FieldErrorSerializer(  # type: ignore[assignment]
        many=True, help_text="every field at fault (a 400; empty for other statuses)"
    )
    suggestions = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="an unknown address's closest known ones",
    )


def error_responses(*statuses: int) -> dict[int, OpenApiResponse]:
    """Schema entries for the error statuses an endpoint can return."""
    described = {
        400: "Malformed request (bad JSON, wrong types, unknown fields or values).",
        401: "Not authenticated: send `Authorization: Token <key>` or a session cookie.",
        403: "Not allowed: e.g. a shipped base is read-only.",
        404: "Not found, or not yours.",
        409: "The simulation's status does not allow it (e.g. it is already running), or "
        "what is deleted is in use (a town a base uses).",
        413: "The request body is larger than the limit.",
        429: "Too many requests: slow down (see `Retry-After`).",
        502: "The language model's answer was unusable (e.g. too long); try again.",
        503: "A model or embedding backend failed, or the database or cache is down; try "
        "again later (see `Retry-After`).",
    }
    return {
        status: OpenApiResponse(response=ProblemSerializer, description=described[status])
        for status in statuses
    }


# What a retrieval (ranking memories for a query) can fail with, for the schema.
EMBEDDING_UNAVAILABLE = {
    409: OpenApiResponse(
        response=ProblemSerializer,
        description="The simulation's model budget is spent (an embedding server's "
        "requests count against it).",
    ),
    503: OpenApiResponse(response=ProblemSerializer, description="The embedding backend failed."),
}
# What an endpoint that calls the language model can fail with, besides its own errors.
MODEL_ERRORS = (409, 429, 502, 503)
