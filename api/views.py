"""API views: thin, they scope reads to the requester and hand writes to services."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from django.contrib.auth.models import User
from django.db.models import (
    Count,
    F,
    Func,
    IntegerField,
    Model,
    OuterRef,
    QuerySet,
    Subquery,
    Value,
)
from django.db.models.functions import Coalesce
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import exceptions, mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.generics import get_object_or_404
from rest_framework.parsers import JSONParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle

from agents import engine
from agents.bases import UnknownBase
from agents.services import simulation_create_from_base
from world import paths
from world.eventlog import simulation_fork
from world.models import Agent, Event, Location, LocationKind, Simulation, Town
from world.selectors import address_at, event_list, location_list, simulation_list, town_list

from .control_views import NewcomerCreateMixin
from .errors import Conflict, error_responses
from .filters import EventFilter, LocationFilter, ResidentFilter
from .pagination import EventCursorPagination
from .serializers import (
    EventSerializer,
    LocationSerializer,
    LocationTilesSerializer,
    PathQuerySerializer,
    PathSerializer,
    ProgressSerializer,
    ResidentDetailSerializer,
    ResidentSerializer,
    SimulationCreateSerializer,
    SimulationForkSerializer,
    SimulationRunSerializer,
    SimulationSerializer,
    TownSerializer,
)
from .throttles import RunThrottle

_M = TypeVar("_M", bound=Model)

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


def _simulations(request: Request) -> QuerySet[Simulation]:
    residents = (
        Agent.objects.filter(simulation=OuterRef("pk"))
        .order_by()
        .values("simulation")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return (
        simulation_list(user=request.user)
        .select_related(None)  # only the town's id is sent; its row holds the tile layers
        .annotate(resident_count=Coalesce(Subquery(residents), Value(0)))
    )


def _user(request: Request) -> User:
    if not isinstance(request.user, User):  # IsAuthenticated has already said no
        raise exceptions.NotAuthenticated()
    return request.user


def _flag(request: Request, name: str) -> bool:
    """A boolean query parameter: absent, true or false (anything else is a 400)."""
    value = request.query_params.get(name)
    if value not in (None, "true", "false"):
        raise exceptions.ValidationError({name: ["true or false"]})
    return value == "true"


TOWN_ID = OpenApiParameter(
    "town_pk", OpenApiTypes.INT, OpenApiParameter.PATH, description="town id"
)
SIMULATION_ID = OpenApiParameter(
    "simulation_pk", OpenApiTypes.INT, OpenApiParameter.PATH, description="simulation id"
)
INCLUDE_TILES = OpenApiParameter(
    "include_tiles",
    OpenApiTypes.BOOL,
    OpenApiParameter.QUERY,
    description="include each place's tiles as [[x, y], ...] (large for worlds and sectors)",
)


# --- towns and locations -----------------------------------------------------------------


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
        try:
            walk = _walk(town, query.validated_data)
        except paths.UnknownAddress as exc:
            end = "from" if exc.address == query.validated_data.get("from") else "to"
            raise exceptions.ValidationError(
                {end: [str(exc)], "suggestions": exc.suggestions}, code="unknown_address"
            ) from exc
        except (paths.NotWalkable, paths.Unreachable) as exc:
            raise exceptions.ValidationError({"path": [str(exc)]}) from exc
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


# --- simulations ---------------------------------------------------------------------------


@extend_schema_view(
    list=extend_schema(
        summary="List my simulations",
        responses={200: SimulationSerializer, **error_responses(401)},
    ),
    retrieve=extend_schema(
        summary="A simulation", responses={200: SimulationSerializer, **error_responses(401, 404)}
    ),
)
class SimulationViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    viewsets.GenericViewSet[Simulation],
):
    """The requester's simulations; anyone else's are not found."""

    serializer_class = SimulationSerializer
    queryset = Simulation.objects.none()
    parser_classes = [JSONParser]  # typed JSON bodies only; forms would make ints strings

    def get_queryset(self) -> QuerySet[Simulation]:
        return _simulations(self.request)

    def get_throttles(self) -> list[BaseThrottle]:
        # Starting a run queues work for the workers: throttled per user.
        if self.action in ("run", "resume"):
            return [RunThrottle()]
        return super().get_throttles()

    def _created(self, simulation: Simulation) -> Response:
        fresh = self.get_queryset().get(pk=simulation.pk)
        return Response(self.get_serializer(fresh).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Create a simulation from a shipped base",
        request=SimulationCreateSerializer,
        responses={201: SimulationSerializer, **error_responses(400, 401)},
    )
    def create(self, request: Request) -> Response:
        body = SimulationCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            simulation = simulation_create_from_base(owner=_user(request), **body.validated_data)
        except UnknownBase as exc:
            raise serializers.ValidationError({"base": [str(exc)]}) from exc
        return self._created(simulation)

    @extend_schema(
        summary="Fork a simulation at a step",
        description="A new simulation, owned by the requester, whose event log is this one's "
        "up to and including `step`.",
        request=SimulationForkSerializer,
        responses={201: SimulationSerializer, **error_responses(400, 401, 404)},
    )
    @action(detail=True, methods=["post"])
    def fork(self, request: Request, pk: str | None = None) -> Response:
        source = self.get_object()
        body = SimulationForkSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        step = body.validated_data.get("step", source.step)
        try:
            child = simulation_fork(
                simulation=source, step=step, name=body.validated_data["name"], owner=_user(request)
            )
        except ValueError as exc:
            raise serializers.ValidationError({"step": [str(exc)]}) from exc
        return self._created(child)

    def _run_control(self, control: Callable[[Simulation], object]) -> Response:
        simulation = self.get_object()
        try:
            control(simulation)
        except engine.RunConflict as exc:
            raise Conflict(str(exc)) from exc
        except engine.RunRefused as exc:
            raise serializers.ValidationError(str(exc)) from exc
        return Response(ProgressSerializer(engine.simulation_progress(simulation=simulation)).data)

    @extend_schema(
        summary="Run a number of steps or until a sim time",
        description="Claims the simulation (409 if it is already running) and queues its "
        "first tick; Celery workers advance it. Poll `progress`.",
        request=SimulationRunSerializer,
        responses={200: ProgressSerializer, **error_responses(400, 401, 404, 409, 429)},
    )
    @action(detail=True, methods=["post"])
    def run(self, request: Request, pk: str | None = None) -> Response:
        body = SimulationRunSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return self._run_control(
            lambda simulation: engine.simulation_run(simulation=simulation, **body.validated_data)
        )

    @extend_schema(
        summary="Pause after the tick in flight",
        request=None,
        responses={200: ProgressSerializer, **error_responses(401, 404, 409)},
    )
    @action(detail=True, methods=["post"])
    def pause(self, request: Request, pk: str | None = None) -> Response:
        return self._run_control(lambda simulation: engine.simulation_pause(simulation=simulation))

    @extend_schema(
        summary="Resume a paused, failed or budget-stopped run towards its target",
        request=None,
        responses={200: ProgressSerializer, **error_responses(400, 401, 404, 409, 429)},
    )
    @action(detail=True, methods=["post"])
    def resume(self, request: Request, pk: str | None = None) -> Response:
        return self._run_control(lambda simulation: engine.simulation_resume(simulation=simulation))

    @extend_schema(
        summary="Progress of the current or last run",
        responses={200: ProgressSerializer, **error_responses(401, 404)},
    )
    @action(detail=True, methods=["get"])
    def progress(self, request: Request, pk: str | None = None) -> Response:
        progress = engine.simulation_progress(simulation=self.get_object())
        return Response(ProgressSerializer(progress).data)


class SimulationChildViewSet(viewsets.GenericViewSet[_M]):
    """Views under /simulations/{simulation_pk}/: the requester's simulation or 404."""

    def simulation(self) -> Simulation:
        if not hasattr(self, "_simulation"):
            mine = simulation_list(user=self.request.user).select_related(None)
            self._simulation = get_object_or_404(mine, pk=self.kwargs["simulation_pk"])
        return self._simulation


RESIDENT = OpenApiParameter(
    "resident", OpenApiTypes.STR, OpenApiParameter.PATH, description="resident id or name"
)


@extend_schema_view(
    list=extend_schema(
        summary="List a simulation's residents",
        parameters=[SIMULATION_ID],
        responses={200: ResidentSerializer, **error_responses(401, 404)},
    ),
    retrieve=extend_schema(
        summary="A resident, with its spatial memory",
        parameters=[SIMULATION_ID, RESIDENT],
        responses={200: ResidentDetailSerializer, **error_responses(401, 404)},
    ),
)
class ResidentViewSet(
    NewcomerCreateMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    SimulationChildViewSet[Agent],
):
    """Residents of one simulation, each with the place at its tile."""

    filterset_class = ResidentFilter
    queryset = Agent.objects.none()
    lookup_url_kwarg = "resident"
    lookup_value_regex = "[^/]+"

    def get_serializer_class(self) -> type[ResidentSerializer]:
        return ResidentDetailSerializer if self.action == "retrieve" else ResidentSerializer

    def get_queryset(self) -> QuerySet[Agent]:
        if getattr(self, "swagger_fake_view", False):
            return Agent.objects.none()
        residents = Agent.objects.filter(simulation=self.simulation())
        if self.action != "retrieve":
            residents = residents.defer(
                "spatial_memory", "seed_statements", "path", "recent_observations", "summary"
            )
        return residents

    def get_object(self) -> Agent:
        key = self.kwargs["resident"]
        lookup = {"pk": int(key)} if key.isascii() and key.isdigit() else {"name": key}
        resident = get_object_or_404(self.get_queryset(), **lookup)
        self.check_object_permissions(self.request, resident)
        return resident

    def _places(self, residents: list[Agent]) -> dict[tuple[int, int], str]:
        """The place at each resident's tile, from one read of the town's layers."""
        if not residents:
            return {}
        town = Town.objects.only(
            "width", "height", "world_name", "legends", "arena_layer", "sector_layer"
        ).get(pk=self.simulation().town_id)
        return {
            agent.tile: address_at(town=town, tile=agent.tile)
            for agent in residents
            if 0 <= agent.tile_x < town.width and 0 <= agent.tile_y < town.height
        }

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        queryset = self.filter_queryset(self.get_queryset())
        page = self.paginate_queryset(queryset)
        residents = list(page if page is not None else queryset)
        serializer = self.get_serializer(
            residents,
            many=True,
            context={**self.get_serializer_context(), "places": self._places(residents)},
        )
        if page is not None:
            return self.get_paginated_response(serializer.data)
        return Response(serializer.data)

    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        resident = self.get_object()
        context = {**self.get_serializer_context(), "places": self._places([resident])}
        return Response(self.get_serializer(resident, context=context).data)


@extend_schema_view(
    list=extend_schema(
        summary="Read a simulation's event log",
        description="Events in `seq` order, paged by cursor: follow `next` until it is null.",
        parameters=[SIMULATION_ID],
        responses={200: EventSerializer, **error_responses(400, 401, 404)},
    ),
)
class EventViewSet(mixins.ListModelMixin, SimulationChildViewSet[Event]):
    """The append-only event log of one simulation."""

    serializer_class = EventSerializer
    filterset_class = EventFilter
    pagination_class = EventCursorPagination
    queryset = Event.objects.none()

    def get_queryset(self) -> QuerySet[Event]:
        if getattr(self, "swagger_fake_view", False):
            return Event.objects.none()
        return event_list(simulation=self.simulation())
