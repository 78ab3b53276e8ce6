"""Views of playing in the town: the share setting (the owner's), who plays whom (join,
take over, leave), and who a played resident can see."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from agents.sleep import is_sleeping
from runtime.controls import (
    player_join,
    player_leave,
    player_take_over,
    players_of,
    share_set,
    sight_of,
    tiles_apart,
)
from world.models import Simulation

from ..errors import domain_errors, error_responses
from ..lookups import (
    RESIDENT_PATH,
    SIMULATION_ID,
    request_body,
    requester,
    resident_of,
    resident_played,
    simulation_owned,
    simulation_watched,
)
from ..parsers import JSONParser
from ..residents.serializers import ResidentStateSerializer, resident_state_data
from ..schema import request_example
from .serializers import JoinSerializer, PlayerSerializer, ShareSerializer, SightSerializer


def _share_data(simulation: Simulation) -> dict[str, Any]:
    guests = sorted(simulation.guests.values_list("username", flat=True))
    return {"share": simulation.share, "guests": guests}


class ShareView(APIView):
    """Who besides the owner may watch the simulation and join it (the owner's setting)."""

    parser_classes = [JSONParser]

    @extend_schema(
        summary="Who may join",
        parameters=[SIMULATION_ID],
        responses={200: ShareSerializer, **error_responses(401, 404)},
    )
    def get(self, request: Request, simulation_pk: int) -> Response:
        return Response(_share_data(simulation_owned(request, simulation_pk)))

    @extend_schema(
        summary="Share the simulation, or stop sharing it",
        description="Off by default. A guest watches the town in the viewer, joins as a "
        "newcomer and moves and speaks for that newcomer only; everything else stays the "
        "owner's. An unknown username in `guests` is a 400 naming it, and nothing changes.",
        parameters=[SIMULATION_ID],
        request=ShareSerializer,
        examples=request_example("Invite two", {"share": "invited", "guests": ["ana", "ben"]}),
        responses={200: ShareSerializer, **error_responses(400, 401, 404, 413)},
    )
    def put(self, request: Request, simulation_pk: int) -> Response:
        simulation = simulation_owned(request, simulation_pk)
        body = request_body(ShareSerializer, request)
        with domain_errors():
            share_set(simulation=simulation, share=body["share"], guests=body.get("guests"))
        return Response(_share_data(simulation))


class PlayersView(APIView):
    """The people in the town: list them, or step in."""

    parser_classes = [JSONParser]

    @extend_schema(
        summary="Who plays whom",
        parameters=[SIMULATION_ID],
        responses={200: PlayerSerializer(many=True), **error_responses(401, 404)},
    )
    def get(self, request: Request, simulation_pk: int) -> Response:
        simulation = simulation_watched(request, simulation_pk)
        players = players_of(simulation=simulation)
        return Response(PlayerSerializer(players, many=True, context={"request": request}).data)

    @extend_schema(
        summary="Step in as a person",
        description="As a newcomer (`name`, `about` as residents will know them, and "
        "`address` or `tile`), which the owner or a guest may do, or by taking over a "
        "resident (`resident`), which only the owner may (403 for a guest; 409 if someone "
        "else plays it). A guest plays one resident at a time (409 for a second). The "
        "resident is user-controlled: it moves and speaks through `go` and `say`, by the "
        "requester only.",
        parameters=[SIMULATION_ID],
        request=JoinSerializer,
        examples=request_example(
            "Arrive", {"name": "Mira Okafor", "about": "a potter visiting", "tile": [40, 50]}
        ),
        responses={201: ResidentStateSerializer, **error_responses(400, 401, 403, 404, 409, 413)},
    )
    def post(self, request: Request, simulation_pk: int) -> Response:
        simulation = simulation_watched(request, simulation_pk)
        body = request_body(JoinSerializer, request)
        user = requester(request)
        if "resident" in body:
            agent = resident_of(simulation, body["resident"], whole=True)
            with domain_errors("resident"):
                agent = player_take_over(simulation=simulation, user=user, agent=agent)
        else:
            tile = body.get("tile")
            with domain_errors():
                agent = player_join(
                    simulation=simulation,
                    user=user,
                    name=body["name"],
                    about=body["about"],
                    address=body.get("address"),
                    tile=(tile[0], tile[1]) if tile else None,
                )
        return Response(resident_state_data(agent, simulation), status=status.HTTP_201_CREATED)


class PlayerView(APIView):
    """One person in the town: leave."""

    @extend_schema(
        summary="Leave the town",
        description="A newcomer the requester brought in leaves the town (its history "
        "stays; replay draws it only between its arrival and leaving); a resident taken "
        "over goes back to its own plan. 403 for a resident the requester does not play.",
        parameters=RESIDENT_PATH,
        request=None,
        responses={200: ResidentStateSerializer, **error_responses(401, 403, 404, 409)},
    )
    def delete(self, request: Request, **kwargs: Any) -> Response:
        simulation, agent = resident_played(request, kwargs)
        with domain_errors():
            agent = player_leave(simulation=simulation, user=requester(request), agent=agent)
        return Response(resident_state_data(agent, simulation))


class SightView(APIView):
    """Who a resident the requester plays can talk to now."""

    @extend_schema(
        summary="Who is in sight",
        description="The residents in the same arena within its vision radius, nearest "
        "first: those `say` can reach. 403 for a resident the requester does not play.",
        parameters=RESIDENT_PATH,
        responses={200: SightSerializer(many=True), **error_responses(401, 403, 404)},
    )
    def get(self, request: Request, **kwargs: Any) -> Response:
        simulation, agent = resident_played(request, kwargs)
        near = sight_of(simulation=simulation, agent=agent)
        rows = [
            {
                "name": other.name,
                "id": other.pk,
                "tile": [other.tile_x, other.tile_y],
                "distance": tiles_apart(agent, other),
                "action": other.action,
                "asleep": is_sleeping(other.action),
                "person": other.user_controlled,
            }
            for other in near
        ]
        return Response(SightSerializer(rows, many=True).data)
