"""Views the town viewer reads: a town's map (cacheable: it never changes) and a
simulation's replay (residents' tiles and actions over a range of steps)."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions
from rest_framework.generics import get_object_or_404
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from runtime.replay import ReplayRangeInvalid, simulation_replay
from world.selectors import towns_watchable
from world.townmap import town_map

from ..errors import error_responses
from ..lookups import SIMULATION_ID, requester, simulation_watched
from .serializers import (
    ReplayQuerySerializer,
    ReplaySerializer,
    TownMapSerializer,
    replay_data,
    town_map_data,
)

TOWN_ID = OpenApiParameter(
    "town_pk", OpenApiTypes.INT, OpenApiParameter.PATH, description="town id"
)
# A town never changes once imported (a re-import is a new row, a deleted town's id is
# never reused): clients may keep its map.
MAP_CACHE_CONTROL = "private, max-age=86400"


class TownMapView(APIView):
    """A town's tile layers, places and objects, for drawing it."""

    @extend_schema(
        summary="A town's map, for drawing it",
        description="The collision, sector and arena layers run-length encoded (row-major "
        "runs: value, count, ...), the sectors and arenas with their names and a tile to "
        "label them at, and the objects with their tiles. Sent with an `ETag` and "
        "`Cache-Control`: a town never changes, so `If-None-Match` gets a 304.",
        parameters=[TOWN_ID],
        responses={
            200: TownMapSerializer,
            304: OpenApiResponse(description="Not modified (the `ETag` matched)."),
            **error_responses(401, 404),
        },
    )
    def get(self, request: Request, town_pk: int) -> Response:
        town = get_object_or_404(towns_watchable(user=requester(request)), pk=town_pk)
        etag = f'"town-{town.pk}-{int(town.created_at.timestamp())}"'
        headers = {"ETag": etag, "Cache-Control": MAP_CACHE_CONTROL}
        if etag in request.headers.get("If-None-Match", ""):
            return Response(status=304, headers=headers)
        return Response(town_map_data(town_map(town=town)), headers=headers)


class ReplayView(APIView):
    """Residents' tiles and actions over a range of a simulation's committed steps."""

    @extend_schema(
        summary="Replay a range of steps",
        description="The residents listed once (their index is their place in the list), "
        "their tiles, actions, emojis and conversation partners at `from_step`, then for "
        "each step up to `to_step` only what changed: `moved` (index, x, y triples) and "
        "`acted` ([index, action, emoji, partner index or -1]). Computed from the event log. "
        "A range past the last committed step, reversed, or longer than the limit is a 400.",
        parameters=[SIMULATION_ID, ReplayQuerySerializer],
        responses={200: ReplaySerializer, **error_responses(400, 401, 404)},
    )
    def get(self, request: Request, simulation_pk: int) -> Response:
        simulation = simulation_watched(request, simulation_pk)
        query = ReplayQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        given = query.validated_data
        try:
            replay = simulation_replay(
                simulation=simulation, from_step=given["from_step"], to_step=given.get("to_step")
            )
        except ReplayRangeInvalid as exc:
            raise exceptions.ValidationError({"to_step": [str(exc)]}) from exc
        return Response(replay_data(replay))
