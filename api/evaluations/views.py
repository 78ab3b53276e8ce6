"""Views of evaluations: start one on the requester's simulation, list them, read one, and
its report page."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions, status
from rest_framework.renderers import StaticHTMLRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from evaluations.models import Evaluation, EvaluationStatus
from evaluations.report import report_html
from evaluations.selectors import evaluation_get, evaluation_list
from evaluations.services import EvaluationError, evaluation_create
from evaluations.tasks import evaluation_enqueue
from llm.profile_services import profiles_visible

from ..errors import Conflict, error_responses
from ..lookups import SIMULATION_ID, request_body, requester, simulation_owned
from ..parsers import JSONParser
from .serializers import EvaluationRequestSerializer, EvaluationSerializer

NUMBER = OpenApiParameter("number", int, OpenApiParameter.PATH, description="evaluation number")


class EvaluationsView(APIView):
    parser_classes = [JSONParser]

    @extend_schema(
        summary="List a simulation's evaluations",
        parameters=[SIMULATION_ID],
        responses={200: EvaluationSerializer(many=True), **error_responses(401, 404)},
    )
    def get(self, request: Request, **kwargs: Any) -> Response:
        simulation = simulation_owned(request, kwargs["simulation_pk"])
        return Response(
            EvaluationSerializer(evaluation_list(simulation=simulation), many=True).data
        )

    @extend_schema(
        summary="Evaluate a simulation at a step",
        description="Creates an evaluation of the kinds asked, run by a worker (the "
        "paper's sections 6 and 7). A bad kind or condition, or a step the simulation "
        "has not reached, is a 400 and creates nothing.",
        parameters=[SIMULATION_ID],
        request=EvaluationRequestSerializer,
        responses={201: EvaluationSerializer, **error_responses(400, 401, 404)},
    )
    def post(self, request: Request, **kwargs: Any) -> Response:
        simulation = simulation_owned(request, kwargs["simulation_pk"])
        body = request_body(EvaluationRequestSerializer, request)
        if body.get("judge_profile") is not None:
            usable = profiles_visible(user=requester(request))
            judge = usable.filter(pk=body["judge_profile"]).first()
            if judge is None:
                raise exceptions.ValidationError(
                    {"judge_profile": [f"no profile {body['judge_profile']} of yours or shared"]}
                )
            body["judge_profile"] = judge
        try:
            evaluation = evaluation_create(simulation=simulation, **body)
        except EvaluationError as exc:
            raise exceptions.ValidationError({exc.field: [str(exc)]}) from exc
        evaluation_enqueue(evaluation=evaluation)
        return Response(EvaluationSerializer(evaluation).data, status=status.HTTP_201_CREATED)


class EvaluationView(APIView):
    @extend_schema(
        summary="An evaluation: its progress and, once done, its result",
        parameters=[SIMULATION_ID, NUMBER],
        responses={200: EvaluationSerializer, **error_responses(401, 404)},
    )
    def get(self, request: Request, **kwargs: Any) -> Response:
        simulation = simulation_owned(request, kwargs["simulation_pk"])
        try:
            evaluation = evaluation_get(simulation=simulation, number=kwargs["number"])
        except Evaluation.DoesNotExist:
            raise exceptions.NotFound() from None
        return Response(EvaluationSerializer(evaluation).data)


class EvaluationReportView(APIView):
    renderer_classes = [*APIView.renderer_classes, StaticHTMLRenderer]

    @extend_schema(
        summary="An evaluation's report page (HTML)",
        description="The tables and figures (PNG, inline) of a done evaluation: TrueSkill "
        "per condition with the statistics, diffusion over time, the relationship graph at "
        "the start and now, hallucination and coordination. 409 until it is done.",
        parameters=[SIMULATION_ID, NUMBER],
        responses={
            (200, "text/html"): OpenApiResponse(description="the report page"),
            **error_responses(401, 404, 409),
        },
    )
    def get(self, request: Request, **kwargs: Any) -> HttpResponse:
        simulation = simulation_owned(request, kwargs["simulation_pk"])
        try:
            evaluation = evaluation_get(simulation=simulation, number=kwargs["number"])
        except Evaluation.DoesNotExist:
            raise exceptions.NotFound() from None
        if evaluation.status != EvaluationStatus.DONE:
            raise Conflict(
                f"evaluation {evaluation.number} is {evaluation.status} "
                f"({evaluation.done}/{evaluation.total}); its report comes when it is done"
            )
        return HttpResponse(report_html(evaluation=evaluation), content_type="text/html")
