"""Views of talking to a resident: interviews (ask, list) and the inner voice (whisper)."""

from __future__ import annotations

from typing import Any

import django_filters
from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import generics, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from agents.models import Interview
from memories.selectors import memories_by_id
from runtime.controls import agent_interview, agent_whisper, whisper_memory

from ..errors import MODEL_ERRORS, domain_errors, error_responses
from ..filters import StrictBooleanFilter
from ..lookups import RESIDENT_PATH, request_body, resident_owned
from ..parsers import JSONParser
from ..schema import request_example
from ..throttles import InterviewThrottle, WhisperThrottle
from .serializers import (
    InterviewRequestSerializer,
    InterviewSerializer,
    WhisperRequestSerializer,
    WhisperSerializer,
)


class InterviewView(APIView):
    """Interview a resident as someone the user names."""

    parser_classes = [JSONParser]
    throttle_classes = [InterviewThrottle]

    @extend_schema(
        summary="Interview a resident",
        description="The resident answers as itself, from the memories it retrieves for "
        "the question and its summary description; earlier turns of the same `session` are "
        "the dialogue. Works while the simulation is paused or running. With `remember` "
        "the exchange becomes one of its memories. Throttled (scope `interview`).",
        parameters=RESIDENT_PATH,
        request=InterviewRequestSerializer,
        examples=request_example(
            "A reporter asks",
            {"persona": "a news reporter", "question": "What are you planning this week?"},
        ),
        responses={
            201: InterviewSerializer,
            **error_responses(400, 401, 404, 413, *MODEL_ERRORS),
        },
    )
    def post(self, request: Request, **kwargs: Any) -> Response:
        simulation, agent = resident_owned(request, kwargs, whole=True)
        body = request_body(InterviewRequestSerializer, request)
        with domain_errors():
            interview = agent_interview(simulation=simulation, agent=agent, **body)
        return Response(InterviewSerializer(interview).data, status=status.HTTP_201_CREATED)


class InterviewFilter(django_filters.FilterSet):
    session = django_filters.CharFilter(label="one interview's session")
    persona = django_filters.CharFilter(lookup_expr="icontains", label="persona contains")
    remembered = StrictBooleanFilter(label="kept as the resident's memory")

    class Meta:
        model = Interview
        fields = ["session", "persona", "remembered"]


class InterviewListView(generics.ListAPIView[Interview]):
    """A resident's interviews, turn by turn, oldest first."""

    serializer_class = InterviewSerializer
    filterset_class = InterviewFilter
    queryset = Interview.objects.none()

    def get_queryset(self) -> QuerySet[Interview]:
        if getattr(self, "swagger_fake_view", False):
            return Interview.objects.none()
        _, agent = resident_owned(self.request, self.kwargs)
        return Interview.objects.filter(agent=agent).select_related("agent").order_by("number")

    @extend_schema(
        summary="List a resident's interviews",
        parameters=RESIDENT_PATH,
        responses={200: InterviewSerializer(many=True), **error_responses(400, 401, 404)},
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class WhisperView(APIView):
    """The inner voice: a statement the resident takes as its own thought."""

    parser_classes = [JSONParser]
    throttle_classes = [WhisperThrottle]

    @extend_schema(
        summary="Whisper to a resident (its inner voice)",
        description="The statement becomes a thought memory of importance at least 8, and "
        "the resident re-plans the rest of its day from it at its next step. Throttled "
        "(scope `whisper`).",
        parameters=RESIDENT_PATH,
        request=WhisperRequestSerializer,
        examples=request_example(
            "An invitation to make",
            {"statement": "I should invite Klaus Mueller to my Valentine's Day party"},
        ),
        responses={201: WhisperSerializer, **error_responses(400, 401, 404, 413, *MODEL_ERRORS)},
    )
    def post(self, request: Request, **kwargs: Any) -> Response:
        simulation, agent = resident_owned(request, kwargs, whole=True)
        body = request_body(WhisperRequestSerializer, request)
        with domain_errors():
            event = agent_whisper(simulation=simulation, agent=agent, statement=body["statement"])
        memory = whisper_memory(event=event)
        result = {
            "seq": event.seq,
            "step": event.step,
            "sim_time": event.sim_time,
            "resident": agent.name,
            "statement": event.payload["statement"],
            "memory": memories_by_id(ids=[memory.pk])[0] if memory else None,
        }
        return Response(WhisperSerializer(result).data, status=status.HTTP_201_CREATED)
