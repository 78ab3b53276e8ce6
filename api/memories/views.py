"""Views of a resident's memory stream: list, detail, evidence tree, and retrieval."""

from __future__ import annotations

from typing import Any

import django_filters
from django.db.models import QuerySet
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions, generics
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from memories.models import Memory, MemoryKind
from memories.retrieval import Mode
from memories.selectors import (
    memories_by_id,
    memory_evidence_tree,
    memory_get,
    memory_list,
    memory_retrieval,
)
from memories.services import memories_touch

from ..errors import EMBEDDING_UNAVAILABLE, domain_errors, error_responses
from ..filters import IntegerFilter
from ..lookups import RESIDENT_PATH, resident_owned
from ..parsers import JSONParser
from .serializers import (
    EvidenceNodeSerializer,
    MemorySerializer,
    RetrievalRequestSerializer,
    RetrievalSerializer,
    evidence_tree_data,
)

NUMBER = OpenApiParameter(
    "number", OpenApiTypes.INT, OpenApiParameter.PATH, description="the memory's number"
)


class MemoryFilter(django_filters.FilterSet):
    kind = django_filters.ChoiceFilter(choices=MemoryKind.choices)
    text = django_filters.CharFilter(
        field_name="description", lookup_expr="icontains", label="description contains (any case)"
    )
    created_after = django_filters.IsoDateTimeFilter(
        field_name="created", lookup_expr="gte", label="created at or after this sim time (ISO)"
    )
    created_before = django_filters.IsoDateTimeFilter(
        field_name="created", lookup_expr="lte", label="created at or before this sim time (ISO)"
    )
    importance_min = IntegerFilter(
        field_name="importance",
        lookup_expr="gte",
        min_value=1,
        max_value=10,
        label="importance at least (1..10)",
    )
    importance_max = IntegerFilter(
        field_name="importance",
        lookup_expr="lte",
        min_value=1,
        max_value=10,
        label="importance at most (1..10)",
    )
    depth_min = IntegerFilter(
        field_name="depth",
        lookup_expr="gte",
        min_value=0,
        max_value=32767,
        label="reflection depth at least (1: reflections only)",
    )

    class Meta:
        model = Memory
        fields = [
            "kind",
            "text",
            "created_after",
            "created_before",
            "importance_min",
            "importance_max",
            "depth_min",
        ]


class MemoryListView(generics.ListAPIView[Memory]):
    """A resident's memory stream, newest first."""

    serializer_class = MemorySerializer
    filterset_class = MemoryFilter
    queryset = Memory.objects.none()

    def get_queryset(self) -> QuerySet[Memory]:
        if getattr(self, "swagger_fake_view", False):
            return Memory.objects.none()
        _, agent = resident_owned(self.request, self.kwargs)
        return memory_list(agent=agent)

    @extend_schema(
        summary="List a resident's memories",
        parameters=RESIDENT_PATH,
        responses={200: MemorySerializer(many=True), **error_responses(400, 401, 404)},
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class MemoryDetailView(APIView):
    """One memory of a resident."""

    @extend_schema(
        summary="A resident's memory",
        parameters=[*RESIDENT_PATH, NUMBER],
        responses={200: MemorySerializer, **error_responses(401, 404)},
    )
    def get(self, request: Request, **kwargs: Any) -> Response:
        return Response(MemorySerializer(_memory(request, kwargs)).data)


def _memory(request: Request, kwargs: dict[str, Any]) -> Memory:
    _, agent = resident_owned(request, kwargs)
    try:
        return memory_get(agent=agent, number=kwargs["number"])
    except Memory.DoesNotExist:
        raise exceptions.NotFound() from None


class MemoryEvidenceView(APIView):
    """The evidence tree of a memory: what a reflection rests on, down to observations."""

    @extend_schema(
        summary="A memory's evidence tree",
        description="The memory and the memories it cites, each with the memories it cites, "
        "in citation order, down to memories that cite nothing (at most 20 levels).",
        parameters=[*RESIDENT_PATH, NUMBER],
        responses={200: EvidenceNodeSerializer, **error_responses(401, 404)},
    )
    def get(self, request: Request, **kwargs: Any) -> Response:
        tree = memory_evidence_tree(memory=_memory(request, kwargs))
        return Response(evidence_tree_data(tree))


class RetrieveView(APIView):
    """Retrieval as the agent does it: recency, importance and relevance to a query."""

    parser_classes = [JSONParser]

    @extend_schema(
        summary="Retrieve a resident's memories for a query",
        description="Scores the resident's memories by the paper's formula with the "
        "simulation's weights and the resident's recency decay, at the simulation's sim "
        "time, and returns the best `k`. A read: nothing changes unless `touch` is true (the "
        "default is false); with it the returned memories' last access becomes that sim "
        "time, recorded as a `memory.touched` event, as when the agent itself retrieves.",
        parameters=RESIDENT_PATH,
        request=RetrievalRequestSerializer,
        responses={
            200: RetrievalSerializer,
            **error_responses(400, 401, 404),
            **EMBEDDING_UNAVAILABLE,
        },
    )
    def post(self, request: Request, **kwargs: Any) -> Response:
        simulation, agent = resident_owned(request, kwargs)
        body = RetrievalRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        with domain_errors():
            retrieval = memory_retrieval(
                simulation=simulation,
                agent=agent,
                query=body.validated_data["query"],
                k=body.validated_data["k"],
                mode=Mode(body.validated_data["mode"]),
            )
        numbers = [s.number for s in retrieval.scored]
        if body.validated_data["touch"]:
            memories_touch(
                simulation=simulation, agent=agent.name, numbers=numbers, at=retrieval.now
            )
        # Read after the touch, so each memory shows its new last access.
        rows = {m.pk: m for m in memories_by_id(ids=[s.memory_id for s in retrieval.scored])}
        result = {
            "query": retrieval.query,
            "mode": retrieval.mode.value,
            "weights": retrieval.weights,
            "decay": retrieval.decay,
            "now": retrieval.now,
            "results": [
                {
                    "memory": rows[s.memory_id],
                    "recency": s.recency,
                    "importance": s.importance,
                    "relevance": s.relevance,
                    "score": s.score,
                }
                for s in retrieval.scored
                if s.memory_id in rows  # a rebuild may have replaced the rows meanwhile
            ],
        }
        return Response(RetrievalSerializer(result).data)
