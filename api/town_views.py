"""Views of towns: a town with its place counts, its place tree, and walks between places."""

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
from rest_framework import exceptions, viewsets
from rest_framework.decorators import action
from rest_framework.generics import get_object_or_404
from rest_framework.request import Request
from rest_framework.response import Response

from world import paths
from world.models import Location, LocationKind, Town
from world.selectors import location_list, town_list

from .errors import domain_errors, error_responses
from .filters import LocationFilter
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


def _towns() -> QuerySet[Town]:
    walkable = Func(
        Func(F("collision"), Value(0), function="array_positions"),
        function="cardinality",
        output_field=IntegerField(),
    )
    return town_list().annotate(
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


@extend_schema_view(
    list=extend_schema(
        summary="List towns", responses={200: TownSerializer, **error_responses(401)}
    ),
    retrieve=extend_schema(
        summary="A town", responses={200: TownSerializer, **error_responses(401, 404)}
    ),
)
class TownViewSet(viewsets.ReadOnlyModelViewSet[Town]):
    """Towns with their place counts; the tile layers themselves are never sent."""

    serializer_class = TownSerializer
    queryset = Town.objects.none()

    def get_queryset(self) -> QuerySet[Town]:
        return _towns()

    @extend_schema(
        summary="A shortest walk between two places or tiles",
        description="Each end is an address (`from`, `to`) or a tile (`from_x`+`from_y`, "
        "`to_x`+`to_y`). A walk from an address starts on a fixed walkable tile of it; a walk "
        "to an address ends on its nearest walkable tile. An unknown address gets a 400 whose "
        "`detail.suggestions` lists the closest known addresses.",
        parameters=[PathQuerySerializer],
        responses={200: PathSerializer, **error_responses(400, 401, 404)},
    )
    @action(
        detail=True, methods=["get"], url_path="path", filter_backends=[], pagination_class=None
    )
    def path(self, request: Request, pk: str | None = None) -> Response:
        town = get_object_or_404(Town.objects.only("id", "created_at", "width", "height"), pk=pk)
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
            towns = Town.objects.only("id", "width")
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
