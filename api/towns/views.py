"""Views of towns: a town with its place counts, its place tree, and walks between places.
A user sees and uses their own towns and the shipped ones; they create theirs from a town
file (world.townbuild) and delete them while nothing uses them."""

from __future__ import annotations

from typing import Any

from django.db.models import (
    Count,
    F,
    Func,
    IntegerField,
    OuterRef,
    QuerySet,
    Subquery,
    Value,
)
from django.db.models.functions import Coalesce
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import exceptions, mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.generics import get_object_or_404
from rest_framework.request import Request
from rest_framework.response import Response

from world import paths
from world.models import Location, LocationKind, Town
from world.selectors import TOWN_LAYERS, location_list, towns_visible
from world.townbuild import town_create, town_delete

from ..errors import domain_errors, error_responses
from ..filters import LocationFilter, TownFilter
from ..lookups import requester
from ..parsers import LargeJSONParser
from ..schema import request_example
from .serializers import (
    LocationSerializer,
    LocationTilesSerializer,
    PathQuerySerializer,
    PathSerializer,
    TownSerializer,
)

# Reads shaped for the API: annotations computed in SQL, so no tile layer is loaded.


def _cardinality(field: str) -> Func:
    return Func(F(field), function="cardinality", output_field=IntegerField())


def _location_count(kind: LocationKind) -> Coalesce:
    counts = (
        Location.objects.filter(town=OuterRef("pk"), kind=kind)
        .order_by()
        .values("town")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return Coalesce(Subquery(counts, output_field=IntegerField()), Value(0))


def _towns(towns: QuerySet[Town]) -> QuerySet[Town]:
    walkable = Func(
        Func(F("collision"), Value(0), function="array_positions"),
        function="cardinality",
        output_field=IntegerField(),
    )
    return towns.defer(*TOWN_LAYERS).annotate(
        sector_count=_location_count(LocationKind.SECTOR),
        arena_count=_location_count(LocationKind.ARENA),
        object_count=_location_count(LocationKind.OBJECT),
        walkable_tiles=walkable,
    )


def _flag(request: Request, name: str) -> bool:
    """A boolean query parameter: absent, true or false (anything else is a 400)."""
    value = request.query_params.get(name)
    if value not in (None, "true", "false"):
        raise exceptions.ValidationError({name: ["true or false"]})
    return value == "true"


TOWN_ID = OpenApiParameter(
    "town_pk", OpenApiTypes.INT, OpenApiParameter.PATH, description="town id"
)
INCLUDE_TILES = OpenApiParameter(
    "include_tiles",
    OpenApiTypes.BOOL,
    OpenApiParameter.QUERY,
    description="include each place's tiles as [[x, y], ...] (large for worlds and sectors)",
)


GRID_EXAMPLE: dict[str, Any] = {
    "format": "smallville-town/1",
    "name": "pebble_row",
    "world": "Pebble Row",
    "tile_size": 32,
    "rows": ["#######", "#hh#kk#", "#hb.kt#", "#.....#", "#######"],
    "legend": {
        "#": {"wall": True},
        ".": {},
        "h": {"sector": "Gull house", "arena": "room"},
        "b": {"sector": "Gull house", "arena": "room", "object": "bed"},
        "k": {"sector": "Tin kiosk", "arena": "counter area"},
        "t": {"sector": "Tin kiosk", "arena": "counter area", "object": "till"},
    },
}
_CREATE_DESCRIPTION = (
    "The body is a town file: a compact grid (`smallville-town/1`: `name`, `world`, "
    "`rows`, `legend`, optional `tile_size`) or a Tiled map (`.tmj`, with `type` `map`: "
    "its layers Collisions, Sector Blocks, Arena Blocks and optionally Object Interaction "
    "Blocks and Spawning Blocks as CSV arrays, block names as the `name` property of "
    "their tiles in embedded tilesets, the town's `name` and `world` as map properties). "
    "docs/authoring.md describes both. A bad field (layers whose sizes disagree, an "
    "arena no spawn point reaches, a place spelled two ways up to case, a name taken) is "
    "a 400 naming it, and nothing is written; a body over the town limit "
    "(SMALLVILLE_MAX_TOWN_BYTES) is a 413."
)


@extend_schema_view(
    list=extend_schema(
        summary="List my towns and the shipped ones",
        responses={200: TownSerializer, **error_responses(401)},
    ),
    retrieve=extend_schema(
        summary="A town", responses={200: TownSerializer, **error_responses(401, 404)}
    ),
    create=extend_schema(
        summary="Create a town from a grid file or a Tiled map",
        description=_CREATE_DESCRIPTION,
        request={"application/json": OpenApiTypes.OBJECT},
        examples=request_example("a small grid town", GRID_EXAMPLE),
        responses={201: TownSerializer, **error_responses(400, 401, 413)},
    ),
    destroy=extend_schema(
        summary="Delete a town of mine that nothing uses",
        description="A shipped town is read-only (403); a town a base or a simulation uses "
        "is a 409 naming them.",
        responses={204: None, **error_responses(401, 403, 404, 409)},
    ),
)
class TownViewSet(
    mixins.CreateModelMixin,
    mixins.DestroyModelMixin,
    viewsets.ReadOnlyModelViewSet[Town],
):
    """The requester's towns and the shipped ones (read-only), with their place counts;
    the tile layers themselves are never sent. Anyone else's towns are not found."""

    serializer_class = TownSerializer
    queryset = Town.objects.none()
    filterset_class = TownFilter
    parser_classes = [LargeJSONParser]  # a town file may be larger than other bodies

    def get_queryset(self) -> QuerySet[Town]:
        return _towns(towns_visible(user=requester(self.request))).select_related("owner")

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        with domain_errors():
            town = town_create(owner=requester(request), data=request.data)
        made = self.get_queryset().get(pk=town.pk)
        return Response(self.get_serializer(made).data, status=status.HTTP_201_CREATED)

    def destroy(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        town = self.get_object()
        if town.shipped:
            raise exceptions.PermissionDenied("a shipped town is read-only")
        with domain_errors():
            town_delete(town=town)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        summary="A shortest walk between two places or tiles",
        description="Each end is an address (`from`, `to`) or a tile (`from_x`+`from_y`, "
        "`to_x`+`to_y`). A walk from an address starts on a fixed walkable tile of it; a walk "
        "to an address ends on its nearest walkable tile. An unknown address gets a 400 whose "
        "`suggestions` lists the closest known addresses.",
        parameters=[PathQuerySerializer],
        responses={200: PathSerializer, **error_responses(400, 401, 404)},
    )
    @action(
        detail=True, methods=["get"], url_path="path", filter_backends=[], pagination_class=None
    )
    def path(self, request: Request, pk: str | None = None) -> Response:
        towns = towns_visible(user=requester(request))
        town = get_object_or_404(towns.only("id", "created_at", "width", "height"), pk=pk)
        query = PathQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        given = query.validated_data
        # An unknown address is reported under its end ("from" if both are one address); a
        # walk that cannot be, under "path".
        ends = {given[end]: end for end in ("to", "from") if end in given}
        with domain_errors("path", ends):
            walk = _walk(town, given)
        body = {"path": [list(tile) for tile in walk], "length": len(walk) - 1}
        return Response(PathSerializer(body).data)


def _walk(town: Town, query: dict[str, Any]) -> list[tuple[int, int]]:
    if "from" in query and "to" in query:
        return paths.path_between_locations(
            town=town, from_address=query["from"], to_address=query["to"]
        )
    if "from" in query:
        start = paths.location_anchor(town=town, address=query["from"])
    else:
        start = (query["from_x"], query["from_y"])
    if "to" in query:
        return paths.path_to_location(town=town, start=start, address=query["to"])
    return paths.path_between_tiles(town=town, start=start, end=(query["to_x"], query["to_y"]))


@extend_schema_view(
    list=extend_schema(
        summary="List a town's places",
        parameters=[TOWN_ID, INCLUDE_TILES],
        responses={200: LocationSerializer, **error_responses(401, 404)},
    ),
    retrieve=extend_schema(
        summary="A place, with its tiles",
        parameters=[TOWN_ID],
        responses={200: LocationTilesSerializer, **error_responses(401, 404)},
    ),
)
class LocationViewSet(viewsets.ReadOnlyModelViewSet[Location]):
    """The place tree world > sector > arena > object of one town."""

    filterset_class = LocationFilter
    queryset = Location.objects.none()

    def town(self) -> Town:
        if not hasattr(self, "_town"):
            towns = towns_visible(user=requester(self.request)).only("id", "width")
            self._town = get_object_or_404(towns, pk=self.kwargs["town_pk"])
        return self._town

    def include_tiles(self) -> bool:
        return self.action == "retrieve" or _flag(self.request, "include_tiles")

    def get_serializer_class(self) -> type[LocationSerializer]:
        return LocationTilesSerializer if self.include_tiles() else LocationSerializer

    def get_queryset(self) -> QuerySet[Location]:
        if getattr(self, "swagger_fake_view", False):
            return Location.objects.none()
        # Only the parent's id is sent, so no join; tiles only when they are sent.
        places = location_list(town=self.town()).select_related(None)
        if not self.include_tiles():
            places = places.defer("tiles")
        return places.annotate(tile_count=_cardinality("tiles"))

    def get_serializer_context(self) -> dict[str, Any]:
        context = dict(super().get_serializer_context())
        if not getattr(self, "swagger_fake_view", False):
            context["town_width"] = self.town().width
        return context
