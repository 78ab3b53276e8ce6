"""Model profiles (a user's own, and those staff shared) and a simulation's routes."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import exceptions, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import BaseSerializer
from rest_framework.views import APIView

from llm.models import ModelProfile
from llm.profile_check import profile_check
from llm.profile_services import (
    ProfileNotAllowed,
    SimulationRunning,
    profile_delete,
    profile_save,
    profiles_visible,
    simulation_models,
    simulation_models_set,
)

from ..errors import Conflict, error_responses
from ..lookups import SIMULATION_ID, requester, simulation_owned
from ..parsers import JSONParser
from .serializers import ModelProfileSerializer, ProfileCheckSerializer, SimulationModelsSerializer


@extend_schema_view(
    create=extend_schema(responses={201: ModelProfileSerializer, **error_responses(400, 403)}),
    update=extend_schema(responses={200: ModelProfileSerializer, **error_responses(400, 403, 404)}),
    partial_update=extend_schema(
        responses={200: ModelProfileSerializer, **error_responses(400, 403, 404)}
    ),
    retrieve=extend_schema(responses={200: ModelProfileSerializer, **error_responses(404)}),
    destroy=extend_schema(responses={204: None, **error_responses(403, 404)}),
)
class ModelProfileViewSet(viewsets.ModelViewSet[ModelProfile]):
    """The requester's model profiles and those staff shared; only its owner changes one."""

    serializer_class = ModelProfileSerializer
    queryset = ModelProfile.objects.none()
    parser_classes = [JSONParser]  # the project's: bounded depth and size, typed bodies only
    lookup_value_regex = r"\d+"

    def get_queryset(self) -> QuerySet[ModelProfile]:
        if getattr(self, "swagger_fake_view", False):
            return ModelProfile.objects.none()
        return profiles_visible(user=requester(self.request)).select_related("owner")

    def perform_create(self, serializer: BaseSerializer[ModelProfile]) -> None:
        serializer.instance = _saved(self.request, None, serializer.validated_data)

    def perform_update(self, serializer: BaseSerializer[ModelProfile]) -> None:
        serializer.instance = _saved(self.request, serializer.instance, serializer.validated_data)

    def perform_destroy(self, instance: ModelProfile) -> None:
        try:
            profile_delete(user=requester(self.request), profile=instance)
        except ProfileNotAllowed as exc:
            raise exceptions.PermissionDenied(str(exc)) from exc

    @extend_schema(
        summary="Make a tiny real call on the profile: reachable, dialect, structured "
        "output, latency",
        request=None,
        responses={200: ProfileCheckSerializer, **error_responses(401, 404)},
    )
    @action(detail=True, methods=["post"])
    def check(self, request: Request, pk: str | None = None) -> Response:
        result = profile_check(profile=self.get_object())
        return Response(ProfileCheckSerializer(result.as_dict()).data)


def _saved(request: Request, profile: ModelProfile | None, data: dict[str, Any]) -> ModelProfile:
    try:
        return profile_save(user=requester(request), profile=profile, **data)
    except ProfileNotAllowed as exc:
        raise exceptions.PermissionDenied(str(exc)) from exc
    except DjangoValidationError as exc:
        raise exceptions.ValidationError(exc.message_dict) from exc


class SimulationModelsView(APIView):
    """Which profiles a simulation's calls go to, its budget in money and its spend."""

    parser_classes = [JSONParser]

    @extend_schema(
        summary="A simulation's model routes, money budget and spend",
        parameters=[SIMULATION_ID],
        responses={200: SimulationModelsSerializer, **error_responses(401, 404)},
    )
    def get(self, request: Request, simulation_pk: int) -> Response:
        simulation = simulation_owned(request, simulation_pk)
        return Response(SimulationModelsSerializer(simulation_models(simulation=simulation)).data)

    @extend_schema(
        summary="Route a simulation's task groups to profiles; set its money budget",
        parameters=[SIMULATION_ID],
        request=SimulationModelsSerializer,
        responses={200: SimulationModelsSerializer, **error_responses(400, 401, 404, 409)},
    )
    def put(self, request: Request, simulation_pk: int) -> Response:
        simulation = simulation_owned(request, simulation_pk)
        body = SimulationModelsSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        try:
            simulation_models_set(
                simulation=simulation,
                routes=data.get("routes"),
                budget_money=data.get("budget_money"),
                set_budget="budget_money" in data,
            )
        except SimulationRunning as exc:
            raise Conflict(str(exc)) from exc
        except ValueError as exc:
            raise exceptions.ValidationError({"routes": [str(exc)]}) from exc
        result = simulation_models(simulation=simulation)
        return Response(SimulationModelsSerializer(result).data, status=status.HTTP_200_OK)
