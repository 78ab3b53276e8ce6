"""Each request's id and span: the id is the caller's `X-Request-ID` when it is a sane
token, else a new one; the request's log lines carry it (kernel/logcontext.py) and the
answer sends it back. With tracing on (kernel/tracing.py), the request is a server span,
continuing the caller's trace when it sends a `traceparent`."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from kernel.logcontext import about
from kernel.tracing import extract, span

_SANE = re.compile(r"[A-Za-z0-9._:-]{1,128}")


def route_template(route: str) -> str:
    """A URL pattern as `http.route` writes it: `api/simulations/(?P<pk>[^/.]+)/run/$` and
    `api/towns/<int:pk>/` become `/api/simulations/{pk}/run/` and `/api/towns/{pk}/`."""
    route = route.removeprefix("^").removesuffix("$")
    route = re.sub(r"\(\?P<(\w+)>[^)]*\)", r"{\1}", route)
    route = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route)
    return "/" + route.lstrip("/")


def request_id(request: HttpRequest) -> str:
    given = request.headers.get("X-Request-ID", "")
    return given if _SANE.fullmatch(given) else uuid.uuid4().hex


class RequestContextMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        rid = request_id(request)
        request.request_id = rid  # type: ignore[attr-defined]  # for django.request's lines
        attributes = {"http.request.method": request.method, "url.path": request.path}
        with (
            about(request_id=rid),
            span(
                f"{request.method}",
                kind="server",
                context=extract({k.lower(): v for k, v in request.headers.items()}),
                attributes=attributes,
            ) as opened,
        ):
            response = self.get_response(request)
            if opened is not None:
                route = getattr(request.resolver_match, "route", "") or ""
                if route:
                    opened.update_name(f"{request.method} {route_template(route)}")
                    opened.set_attribute("http.route", route_template(route))
                opened.set_attribute("http.response.status_code", response.status_code)
        response["X-Request-ID"] = rid
        return response
