"""Views of what residents plan and say: a resident's plan tree, and conversations."""

from __future__ import annotations

from typing import Any

import django_filters
from django.db.models import F, Func, IntegerField, QuerySet
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import exceptions, mixins
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from agents.models import Conversation
from agents.selectors import conversation_list, plan_items_current, plan_tree

from ..errors import error_responses
from ..filters import IntegerFilter
from ..lookups import RESIDENT_PATH, SIMULATION_ID, SimulationChildViewSet, resident_owned
from .serializers import (
    ConversationDetailSerializer,
    ConversationSerializer,
    PlanQuerySerializer,
    PlanSerializer,
)


class PlanView(APIView):
    """A resident's plan tree for one sim day."""

    @extend_schema(
        summary="A resident's plan for a sim day",
        description="The day plan (broad strokes), each item with the hour blocks it was "
        "decomposed into, each with its 5-15 minute actions, all in time order. `current` "
        "marks the items under way at the simulation's sim time; with `step`, the plan as "
        "it stood at that step and the items under way then (a replay's). A step past the "
        "last committed one is a 400.",
        parameters=[*RESIDENT_PATH, PlanQuerySerializer],
        responses={200: PlanSerializer, **error_responses(400, 401, 404)},
    )
    def get(self, request: Request, **kwargs: Any) -> Response:
        simulation, agent = resident_owned(request, kwargs)
        query = PlanQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        step = query.validated_data.get("step")
        if step is not None and step > simulation.step:
            raise exceptions.ValidationError(
                {"step": [f"must be at most {simulation.step} (the last committed step)"]}
            )
        now = simulation.sim_time_at(simulation.step if step is None else step)
        day = query.validated_data.get("date") or now.date()
        include_superseded = query.validated_data["include_superseded"]
        roots = plan_tree(agent=agent, day=day, include_superseded=include_superseded, step=step)
        body = {
            "resident": agent.name,
            "date": day,
            "step": simulation.step if step is None else step,
            "sim_time": now,
            "include_superseded": include_superseded,
            "items": roots,
        }
        context = {"current": plan_items_current(roots=roots, now=now)}
        return Response(PlanSerializer(body, context=context).data)


class ConversationFilter(django_filters.FilterSet):
    participant = django_filters.CharFilter(
        method="filter_participant", label="a participant's name"
    )
    step_min = IntegerFilter(field_name="step", lookup_expr="gte", label="held at or after")
    step_max = IntegerFilter(field_name="step", lookup_expr="lte", label="held at or before")

    class Meta:
        model = Conversation
        fields = ["participant", "step_min", "step_max"]

    def filter_participant(
        self, queryset: QuerySet[Conversation], name: str, value: str
    ) -> QuerySet[Conversation]:
        return queryset.filter(participants__contains=[value]) if value else queryset


NUMBER = OpenApiParameter(
    "number", OpenApiTypes.INT, OpenApiParameter.PATH, description="the conversation's number"
)


@extend_schema_view(
    list=extend_schema(
        summary="List a simulation's conversations",
        description="Newest first; each with its summary. The lines are in the detail view.",
        parameters=[SIMULATION_ID],
        responses={200: ConversationSerializer, **error_responses(400, 401, 404)},
    ),
    retrieve=extend_schema(
        summary="A conversation, line by line",
        parameters=[SIMULATION_ID, NUMBER],
        responses={200: ConversationDetailSerializer, **error_responses(401, 404)},
    ),
)
class ConversationViewSet(
    mixins.ListModelMixin, mixins.RetrieveModelMixin, SimulationChildViewSet[Conversation]
):
    """Conversations of one simulation, by their number (a guest's too)."""

    watchable = True

    filterset_class = ConversationFilter
    queryset = Conversation.objects.none()
    lookup_field = "number"
    lookup_value_regex = "[0-9]+"

    def get_serializer_class(self) -> type[ConversationSerializer]:
        if self.action == "retrieve":
            return ConversationDetailSerializer
        return ConversationSerializer

    def get_queryset(self) -> QuerySet[Conversation]:
        if getattr(self, "swagger_fake_view", False):
            return Conversation.objects.none()
        conversations = conversation_list(simulation=self.simulation()).annotate(
            line_count=Func(F("lines"), function="jsonb_array_length", output_field=IntegerField())
        )
        if self.action != "retrieve":
            conversations = conversations.defer("lines")
        return conversations
