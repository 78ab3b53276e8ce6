"""A simulation's live event stream (Server-Sent Events; docs/integration.md).

The view checks what every view checks (authentication, the simulation is the
requester's, its parameters) and then either hands the stream to the ASGI server
(smallville_project.gateway, which offers it at environ[HANDOFF]: no thread is held) or,
under a WSGI server, streams from its own thread (integration.streams.follow)."""

from __future__ import annotations

import re
from typing import Any

from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.views import APIView

from integration.streams import HANDOFF, StreamSpec, follow

from ..errors import error_responses
from ..lookups import SIMULATION_ID, simulation_watched
from ..pagination import MAX_SEQ
from ..simulations.serializers import EventSerializer

MAX_NAMES = 50
_KIND = re.compile(r"[a-z][a-z0-9_.]{0,59}")

DESCRIPTION = """Server-Sent Events: each committed event of the simulation's log, within a
second of its commit, as `id: <seq>` and `data: <the event as the events list shows it>`,
in seq order, each once. A comment line (`: heartbeat`) every 15 s while nothing happens.
The stream starts after `Last-Event-ID` (the header EventSource sends when it reconnects),
else after `after`, else at the log's start; it ends when the simulation is deleted (or
the server stops: reconnect with `Last-Event-ID`, nothing is lost)."""


class SimulationStreamView(APIView):
    """A simulation's log as it grows."""

    @extend_schema(
        summary="Follow a simulation's event log live (Server-Sent Events)",
        description=DESCRIPTION,
        parameters=[
            SIMULATION_ID,
            OpenApiParameter(
                "Last-Event-ID",
                OpenApiTypes.INT,
                OpenApiParameter.HEADER,
                description="the seq of the last event received: the stream resumes after it",
            ),
            OpenApiParameter(
                "after",
                OpenApiTypes.INT,
                description="start after this seq (Last-Event-ID wins when both are sent)",
            ),
            OpenApiParameter(
                "kinds", OpenApiTypes.STR, description="only these event kinds, comma-separated"
            ),
            OpenApiParameter(
                "residents",
                OpenApiTypes.STR,
                description="only the events of these residents (names), comma-separated",
            ),
        ],
        responses={
            (200, "text/event-stream"): OpenApiResponse(
                EventSerializer,
                description="The stream, until the client hangs up: each event's `data` is "
                "the event as the events list shows it.",
            ),
            **error_responses(400, 401, 404),
        },
    )
    def get(self, request: Request, simulation_pk: int) -> StreamingHttpResponse:
        simulation = simulation_watched(request, simulation_pk)
        spec = StreamSpec(
            simulation_id=simulation.pk,
            after=_after(request),
            kinds=_names(request, "kinds", lambda name: bool(_KIND.fullmatch(name))),
            residents=_names(request, "residents", lambda name: len(name) <= 200),
        )
        handoff = request.META.get(HANDOFF)
        if request.method == "HEAD":  # the headers only
            response = StreamingHttpResponse(iter(()), content_type="text/event-stream")
        elif isinstance(handoff, list):
            handoff.append(spec)
            response = StreamingHttpResponse(iter(()), content_type="text/event-stream")
        else:
            response = StreamingHttpResponse(follow(spec), content_type="text/event-stream")
        response["Cache-Control"] = "no-cache"
        response["X-Accel-Buffering"] = "no"  # a proxy in front must not buffer it
        return response

    def perform_content_negotiation(
        self, request: Request, force: bool = False
    ) -> tuple[BaseRenderer, str]:
        """Errors in the API's JSON whatever the client accepts (EventSource sends
        `Accept: text/event-stream`)."""
        return JSONRenderer(), JSONRenderer.media_type


def _after(request: Request) -> int:
    header = request.META.get("HTTP_LAST_EVENT_ID")
    name, raw = ("Last-Event-ID", header) if header is not None else ("after", None)
    if raw is None:
        raw = request.query_params.get("after")
        if raw is None:
            return 0
    raw = raw.strip()
    if not (raw.isascii() and raw.isdigit()) or int(raw) > MAX_SEQ:
        message = "the seq of an event: a whole number of at least 0"
        raise exceptions.ValidationError({name: [message]})
    return int(raw)


def _names(request: Request, name: str, valid: Any) -> frozenset[str]:
    raw = request.query_params.get(name)
    if raw is None:
        return frozenset()
    names = [part.strip() for part in raw.split(",")]
    if not all(names) or len(names) > MAX_NAMES or not all(valid(part) for part in names):
        message = f"a comma-separated list of at most {MAX_NAMES} names, none empty"
        raise exceptions.ValidationError({name: [message]})
    return frozenset(names)
