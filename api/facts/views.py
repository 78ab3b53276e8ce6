"""Views of a simulation's named facts: the ones its base names, and who holds one, from
which step and told by whom (the viewer's "Colour by fact")."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from evaluations.fact_selectors import fact_holders, fact_read, facts_named
from evaluations.named import MeasureError

from ..errors import FieldErrors, error_responses
from ..lookups import SIMULATION_ID, simulation_owned
from .serializers import FactQuerySerializer, FactsSerializer, HoldersSerializer


class FactsView(APIView):
    @extend_schema(
        summary="The facts a simulation's base names",
        description="The named facts whose diffusion its evaluations measure by default "
        "(the base's `measures`); empty for a base that names none.",
        parameters=[SIMULATION_ID],
        responses={200: FactsSerializer, **error_responses(401, 404)},
    )
    def get(self, request: Request, **kwargs: Any) -> Response:
        simulation = simulation_owned(request, kwargs["simulation_pk"])
        facts = [fact.as_json() for fact in facts_named(simulation=simulation)]
        return Response(FactsSerializer({"facts": facts}).data)


class FactHoldersView(APIView):
    @extend_schema(
        summary="Who holds a fact, since which step, told by whom",
        description="Every resident one of whose memories states the fact in one sentence, "
        "with the step (and sim time) of its first such memory and who told it, read from "
        "the memory stream as the diffusion measure reads it (docs/evaluation.md). A "
        "resident holds it at step s when its `step` <= s. An empty or long clause, bad "
        "words or an unknown origin is a 400 naming the field.",
        parameters=[SIMULATION_ID, FactQuerySerializer],
        responses={200: HoldersSerializer, **error_responses(400, 401, 404)},
    )
    def get(self, request: Request, **kwargs: Any) -> Response:
        simulation = simulation_owned(request, kwargs["simulation_pk"])
        query = FactQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        given = query.validated_data
        try:
            fact = fact_read(
                simulation=simulation,
                text=given["fact"],
                words=given.get("words"),
                origin=given.get("origin"),
            )
        except MeasureError as exc:
            raise FieldErrors(exc.errors) from exc
        return Response(HoldersSerializer(fact_holders(simulation=simulation, fact=fact)).data)
