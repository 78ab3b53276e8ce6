"""Views of experiments: define, start, pause, resume, cancel, delete; progress, results
(JSON and CSV) and the report page. A user sees only their own experiments."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.http import HttpResponse
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import exceptions, mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.renderers import StaticHTMLRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle

from experiments.definition import DefinitionInvalid
from experiments.models import Experiment, ExperimentStatus
from experiments.report import report_html, results_csv
from experiments.selectors import experiments_owned
from experiments.services import (
    ExperimentConflict,
    experiment_cancel,
    experiment_create,
    experiment_delete,
    experiment_pause,
    experiment_resume,
    experiment_start,
)

from ..errors import Conflict, FieldErrors, error_responses
from ..lookups import requester
from ..parsers import JSONParser
from ..throttles import RunThrottle
from .serializers import ExperimentDefinitionSerializer, ExperimentSerializer

CONTROL = {200: ExperimentSerializer, **error_responses(401, 404, 409)}


@extend_schema_view(
    list=extend_schema(
        summary="List my experiments",
        responses={200: ExperimentSerializer(many=True), **error_responses(401)},
    ),
    retrieve=extend_schema(
        summary="An experiment: its definition, progress and runs",
        responses={200: ExperimentSerializer, **error_responses(401, 404)},
    ),
)
class ExperimentViewSet(
    mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet[Experiment]
):
    serializer_class = ExperimentSerializer
    queryset = Experiment.objects.none()
    parser_classes = [JSONParser]

    def get_queryset(self) -> QuerySet[Experiment]:
        return experiments_owned(user=requester(self.request))

    def get_throttles(self) -> list[BaseThrottle]:
        # Starting makes simulations (seeding calls the model) and queues their runs.
        match self.action:
            case "start" | "resume":
                return [RunThrottle()]
        return super().get_throttles()

    @extend_schema(
        summary="Define an experiment",
        description="Variants x seeds of simulations from one start (docs/experiments.md). "
        "A bad definition is a 400 naming the field and writes nothing; `start/` runs it.",
        request=ExperimentDefinitionSerializer,
        responses={201: ExperimentSerializer, **error_responses(400, 401)},
    )
    def create(self, request: Request) -> Response:
        try:
            experiment = experiment_create(owner=requester(request), data=request.data)
        except DefinitionInvalid as exc:
            raise FieldErrors(exc.errors) from None
        return Response(self.get_serializer(experiment).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Delete an experiment",
        description="Its runs' simulations stay (they are yours). Refused while it runs.",
        request=None,
        responses={204: None, **error_responses(401, 404, 409)},
    )
    def destroy(self, request: Request, pk: str) -> Response:
        experiment = self.get_object()
        if request.body:
            raise exceptions.ValidationError(["a DELETE takes no body"])
        self._control(experiment_delete, experiment)
        return Response(status=status.HTTP_204_NO_CONTENT)

    def _control(self, control: Any, experiment: Experiment) -> Any:
        try:
            return control(experiment=experiment)
        except ExperimentConflict as exc:
            raise Conflict(str(exc)) from None

    def _respond(self, control: Any) -> Response:
        experiment = self.get_object()
        self._control(control, experiment)
        experiment.refresh_from_db()
        return Response(self.get_serializer(experiment).data)

    @extend_schema(summary="Start a pending experiment", request=None, responses=CONTROL)
    @action(detail=True, methods=["post"])
    def start(self, request: Request, pk: str) -> Response:
        return self._respond(experiment_start)

    @extend_schema(
        summary="Pause: no new run; runs under way stop after their tick in flight",
        request=None,
        responses=CONTROL,
    )
    @action(detail=True, methods=["post"])
    def pause(self, request: Request, pk: str) -> Response:
        return self._respond(experiment_pause)

    @extend_schema(summary="Resume a paused experiment", request=None, responses=CONTROL)
    @action(detail=True, methods=["post"])
    def resume(self, request: Request, pk: str) -> Response:
        return self._respond(experiment_resume)

    @extend_schema(
        summary="Cancel for good: runs not made are dropped, runs under way stop whole",
        request=None,
        responses=CONTROL,
    )
    @action(detail=True, methods=["post"])
    def cancel(self, request: Request, pk: str) -> Response:
        return self._respond(experiment_cancel)

    def _done(self) -> Experiment:
        experiment = self.get_object()
        if experiment.status != ExperimentStatus.DONE:
            raise Conflict(
                f"experiment {experiment.pk} is {experiment.status}; results come "
                "when every run has ended"
            )
        return experiment

    @extend_schema(
        summary="The results: per variant each measure's mean and 95% interval, curves with "
        "bands, and the differences from the first variant",
        responses={
            200: OpenApiResponse(description="the results as JSON"),
            **error_responses(401, 404, 409),
        },
    )
    @action(detail=True, methods=["get"])
    def results(self, request: Request, pk: str) -> Response:
        return Response(self._done().results)

    @extend_schema(
        summary="The results as CSV: a row per variant and measure, and per difference",
        responses={
            (200, "text/csv"): OpenApiResponse(description="CSV"),
            **error_responses(401, 404, 409),
        },
    )
    @action(detail=True, methods=["get"], url_path="results/csv")
    def results_csv(self, request: Request, pk: str) -> HttpResponse:
        experiment = self._done()
        response = HttpResponse(results_csv(experiment=experiment), content_type="text/csv")
        response["Content-Disposition"] = f'attachment; filename="experiment-{experiment.pk}.csv"'
        return response

    @extend_schema(
        summary="The report page (HTML, figures inline)",
        responses={
            (200, "text/html"): OpenApiResponse(description="the report page"),
            **error_responses(401, 404, 409),
        },
    )
    @action(
        detail=True,
        methods=["get"],
        renderer_classes=[*viewsets.GenericViewSet.renderer_classes, StaticHTMLRenderer],
    )
    def report(self, request: Request, pk: str) -> HttpResponse:
        return HttpResponse(report_html(experiment=self._done()), content_type="text/html")
