"""Views of a simulation's residents: list, detail, and a newcomer stepping in."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import exceptions, mixins, status
from rest_framework.request import Request
from rest_framework.response import Response

from runtime.controls import Identity, agent_leave, newcomer_create
from world.models import Agent, Town
from world.selectors import address_at

from ..errors import domain_errors, error_responses
from ..filters import ResidentFilter
from ..lookups import (
    RESIDENT_PATH,
    SIMULATION_ID,
    SimulationChildViewSet,
    request_body,
    resident_in,
)
from ..parsers import JSONParser
from ..schema import request_example
from .serializers import (
    NewcomerSerializer,
    ResidentDetailSerializer,
    ResidentSerializer,
    ResidentStateSerializer,
    resident_state_data,
)


@extend_schema_view(
    list=extend_schema(
        summary="List a simulation's residents",
        parameters=[SIMULATION_ID],
        responses={200: ResidentSerializer, **error_responses(401, 404)},
    ),
    retrieve=extend_schema(
        summary="A resident, with its spatial memory",
        parameters=RESIDENT_PATH,
        responses={200: ResidentDetailSerializer, **error_responses(401, 404)},
    ),
)
class ResidentViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.DestroyModelMixin,
    SimulationChildViewSet[Agent],
):
    """Residents of one simulation, each with the place at its tile (a guest's too)."""

    watchable = True

    filterset_class = ResidentFilter
    queryset = Agent.objects.none()
    parser_classes = [JSONParser]  # typed JSON bodies only; forms would make ints strings
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
        resident = resident_in(self.get_queryset(), self.kwargs["resident"])
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

    @extend_schema(
        summary="Leave the town",
        description="The resident leaves now: it no longer decides, is seen or talked to; "
        "its row, memories and history stay (`left_step` says when). An event of the log, "
        "so replay and fork keep it; a leave at a later time is a scenario (`kind: leave`). "
        "409 if it left already.",
        parameters=RESIDENT_PATH,
        responses={200: ResidentStateSerializer, **error_responses(401, 404, 409)},
    )
    def destroy(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        if request.data:  # read, so a hostile body is the parser's 400, not ignored
            raise exceptions.ValidationError({"non_field_errors": ["a leave takes no body"]})
        simulation = self.simulation()
        resident = resident_in(Agent.objects.filter(simulation=simulation), kwargs["resident"])
        with domain_errors():
            agent_leave(simulation=simulation, agent=resident)
        resident.refresh_from_db()
        return Response(resident_state_data(resident, simulation))

    @extend_schema(
        summary="Step in as a newcomer",
        description="A new resident, user-controlled (or, with `user_controlled: false`, "
        "living its own day: it plans at its next step), with the identity given, starting "
        "at `address` (a place of the town) or `tile`. It knows every arena of the town "
        "(`knows: town`) or only the one it starts in (`knows: here`); `memories` are its "
        "first thoughts. The name must be new in the simulation.",
        parameters=[SIMULATION_ID],
        request=NewcomerSerializer,
        examples=request_example(
            "A reporter moves in",
            {
                "name": "Mira Okafor",
                "age": 36,
                "innate": "curious, precise",
                "currently": "Mira Okafor is a reporter new to Brindle Green",
                "address": "Brindle Green:Kettle Cafe:cafe",
                "memories": ["I want to meet the owner of Kettle Cafe"],
            },
        ),
        responses={201: ResidentStateSerializer, **error_responses(400, 401, 404, 413, 503)},
    )
    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        simulation = self.simulation()
        body = request_body(NewcomerSerializer, request)
        fields = {f.name for f in Identity.__dataclass_fields__.values()}
        identity = Identity(**{k: v for k, v in body.items() if k in fields})
        tile = body.get("tile")
        with domain_errors(fields={body["living_area"]: "living_area"}):
            agent = newcomer_create(
                simulation=simulation,
                name=body["name"],
                identity=identity,
                address=body.get("address"),
                tile=(tile[0], tile[1]) if tile else None,
                knows_town=body["knows"] == "town",
                memories=body["memories"],
                user_controlled=body["user_controlled"],
            )
        return Response(resident_state_data(agent, simulation), status=status.HTTP_201_CREATED)
