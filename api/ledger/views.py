"""Read-only views of the model-call ledger of one of the requester's simulations."""

from __future__ import annotations

from typing import Any

import django_filters
from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import generics
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from llm.estimate import simulation_estimate
from llm.models import ModelCall
from llm.selectors import model_call_list, model_call_summary

from ..errors import error_responses
from ..filters import StrictBooleanFilter
from ..lookups import SIMULATION_ID, simulation_owned
from .serializers import (
    EstimateQuerySerializer,
    EstimateSerializer,
    ModelCallSerializer,
    ModelCallSummarySerializer,
)


class ModelCallFilter(django_filters.FilterSet):
    task = django_filters.CharFilter(label="task name, e.g. importance")
    agent = django_filters.CharFilter(field_name="agent_name", label="agent name")
    backend = django_filters.CharFilter(label="offline or openai")
    has_error = StrictBooleanFilter(
        method="filter_has_error", label="true: only failed calls; false: only succeeded ones"
    )
    fallback = StrictBooleanFilter(label="true: only calls that took the fail-safe answer")

    class Meta:
        model = ModelCall
        fields = ["task", "agent", "backend", "has_error", "fallback"]

    def filter_has_error(
        self, queryset: QuerySet[ModelCall], name: str, value: bool
    ) -> QuerySet[ModelCall]:
        # Called only with a value (django-filter skips an absent one); the hint is the
        # schema's type.
        return queryset.exclude(error="") if value else queryset.filter(error="")


class ModelCallListView(generics.ListAPIView[ModelCall]):
    """The simulation's language-model calls, newest first."""

    serializer_class = ModelCallSerializer
    filterset_class = ModelCallFilter
    queryset = ModelCall.objects.none()

    def get_queryset(self) -> QuerySet[ModelCall]:
        if getattr(self, "swagger_fake_view", False):
            return ModelCall.objects.none()
        return model_call_list(
            simulation=simulation_owned(self.request, self.kwargs["simulation_pk"])
        )

    @extend_schema(
        summary="List a simulation's model calls (the ledger)",
        parameters=[SIMULATION_ID],
        responses={200: ModelCallSerializer(many=True), **error_responses(400, 401, 404)},
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class ModelCallSummaryView(APIView):
    """Calls and tokens of a simulation in total and per task, agent, model and sim hour."""

    @extend_schema(
        summary="Model calls and tokens of a simulation, per task, agent, model and sim hour",
        parameters=[SIMULATION_ID],
        responses={200: ModelCallSummarySerializer, **error_responses(401, 404)},
    )
    def get(self, request: Request, simulation_pk: int) -> Response:
        simulation = simulation_owned(request, simulation_pk)
        summary = model_call_summary(simulation=simulation)
        return Response(ModelCallSummarySerializer(summary).data)


class EstimateView(APIView):
    """What the simulation's next sim hours will cost on its profiles, before they run."""

    @extend_schema(
        summary="An estimate of a span's calls, tokens, money and wall time, before it runs",
        description="From the ledger of the owner's earlier runs of the same base (per "
        "resident per sim hour since a run's start, by task), or the stated default table "
        "where there are none; `low` and `high` are the range over earlier runs (half to "
        "twice for the default table). Money is at the prices of the profiles each task "
        "routes to.",
        parameters=[SIMULATION_ID, EstimateQuerySerializer],
        responses={200: EstimateSerializer, **error_responses(400, 401, 404)},
    )
    def get(self, request: Request, simulation_pk: int) -> Response:
        simulation = simulation_owned(request, simulation_pk)
        query = EstimateQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        found = simulation_estimate(simulation=simulation, hours=query.validated_data["hours"])
        return Response(EstimateSerializer(found).data)
