"""Views of reflection: why a resident believes something, from its reflections."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from agents.reflection.selectors import reflection_why

from ..errors import EMBEDDING_UNAVAILABLE, domain_errors, error_responses
from ..lookups import RESIDENT_PATH, resident_owned
from ..parsers import JSONParser
from .serializers import WhyRequestSerializer, WhySerializer


class WhyView(APIView):
    """ "Why does this resident believe X?": its reflections on X, each with its evidence."""

    parser_classes = [JSONParser]

    @extend_schema(
        summary="Explain a belief of a resident",
        description="Ranks the resident's reflections (only) for the statement by the "
        "paper's retrieval formula (recency, importance, relevance; normalised among its "
        "reflections) at the simulation's sim time, and returns the best `k`, each with "
        "its evidence tree: the memories it cites, and theirs, down to observations. "
        "Reads only: nothing is touched.",
        parameters=RESIDENT_PATH,
        request=WhyRequestSerializer,
        responses={
            200: WhySerializer,
            **error_responses(400, 401, 404),
            **EMBEDDING_UNAVAILABLE,
        },
    )
    def post(self, request: Request, **kwargs: Any) -> Response:
        simulation, agent = resident_owned(request, kwargs)
        body = WhyRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        with domain_errors():
            why = reflection_why(
                simulation=simulation,
                agent=agent,
                statement=body.validated_data["statement"],
                k=body.validated_data["k"],
            )
        return Response(WhySerializer(why).data)
