"""Views of a simulation's scenarios: list (pending and applied), add, read, cancel."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from agents.models import Scenario, ScenarioStatus
from runtime.scenarios import scenario_add, scenario_cancel

from ..errors import domain_errors, error_responses
from ..lookups import SIMULATION_ID, simulation_owned
from ..parsers import JSONParser
from ..schema import request_example
from .serializers import ScenarioRequestSerializer, ScenarioSerializer

NUMBER = OpenApiParameter("number", int, OpenApiParameter.PATH, description="the scenario's number")
STATUS = OpenApiParameter(
    "status", str, enum=list(ScenarioStatus.values), description="only scenarios of this status"
)


class ScenarioListView(APIView):
    """A simulation's scenarios: list them, add one."""

    parser_classes = [JSONParser]

    @extend_schema(
        summary="List a simulation's scenarios",
        parameters=[SIMULATION_ID, STATUS],
        responses={200: ScenarioSerializer(many=True), **error_responses(400, 401, 404)},
    )
    def get(self, request: Request, simulation_pk: int) -> Response:
        simulation = simulation_owned(request, simulation_pk)
        rows = Scenario.objects.filter(simulation=simulation).order_by("number")
        wanted = request.query_params.get("status")
        if wanted is not None:
            if wanted not in ScenarioStatus.values:
                raise exceptions.ValidationError({"status": [f"one of {ScenarioStatus.values}"]})
            rows = rows.filter(status=wanted)
        return Response(ScenarioSerializer(rows, many=True).data)

    @extend_schema(
        summary="Add a scenario",
        description="At sim time `at` (the start of the first step at or after it): "
        "`whisper` a `statement` to a `resident`; `announce` a `statement` in public at a "
        "`place` (everyone there perceives it); set an object's `state` (`object_state`, "
        "`address`); `arrive` (a newcomer living its own day: `name`, identity fields, "
        "`address` or `tile`, `memories`); `leave` (a `resident`). A 400 names the field at "
        "fault (an unknown resident or place, a time in the past or outside the clock's "
        "range, an unknown kind) and writes nothing; 409 while residents stand ahead of "
        "the log.",
        parameters=[SIMULATION_ID],
        request=ScenarioRequestSerializer,
        examples=request_example(
            "A notice at the market",
            {
                "kind": "announce",
                "at": "2024-05-06T09:00:00Z",
                "place": "Oakridge:Market Hall",
                "statement": "The bridge on Mill Road is closed until Friday.",
            },
        ),
        responses={201: ScenarioSerializer, **error_responses(400, 401, 404, 409, 413)},
    )
    def post(self, request: Request, simulation_pk: int) -> Response:
        simulation = simulation_owned(request, simulation_pk)
        if not isinstance(request.data, dict):
            raise exceptions.ValidationError(["the body must be a JSON object"])
        head = ScenarioRequestSerializer(data=request.data)
        head.is_valid(raise_exception=True)
        params = {k: v for k, v in request.data.items() if k not in ("kind", "at")}
        with domain_errors():
            scenario = scenario_add(
                simulation=simulation,
                kind=head.validated_data["kind"],
                at=head.validated_data["at"],
                params=params,
            )
        return Response(ScenarioSerializer(scenario).data, status=status.HTTP_201_CREATED)


class ScenarioDetailView(APIView):
    """One scenario: read it, cancel it while pending."""

    def _scenario(self, request: Request, simulation_pk: int, number: int) -> Scenario:
        simulation = simulation_owned(request, simulation_pk)
        try:
            return Scenario.objects.get(simulation=simulation, number=number)
        except Scenario.DoesNotExist:
            raise exceptions.NotFound() from None

    @extend_schema(
        summary="A scenario",
        parameters=[SIMULATION_ID, NUMBER],
        responses={200: ScenarioSerializer, **error_responses(401, 404)},
    )
    def get(self, request: Request, simulation_pk: int, number: int) -> Response:
        return Response(ScenarioSerializer(self._scenario(request, simulation_pk, number)).data)

    @extend_schema(
        summary="Cancel a pending scenario",
        description="It stays listed as cancelled (a log event); 409 once applied or cancelled.",
        parameters=[SIMULATION_ID, NUMBER],
        responses={200: ScenarioSerializer, **error_responses(401, 404, 409)},
    )
    def delete(self, request: Request, simulation_pk: int, number: int) -> Response:
        scenario = self._scenario(request, simulation_pk, number)
        with domain_errors():
            scenario = scenario_cancel(simulation=scenario.simulation, scenario=scenario)
        return Response(ScenarioSerializer(scenario).data)
