"""Views of changing the world and stepping in: object states; control, go and say."""

from __future__ import annotations

from typing import Any

import django_filters
from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, generics, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from agents.models import Conversation, ObjectState
from runtime.controls import agent_go, agent_say, agent_take_control, object_state_set

from ..cognition.serializers import ConversationDetailSerializer
from ..errors import MODEL_ERRORS, domain_errors, error_responses
from ..lookups import (
    RESIDENT_PATH,
    SIMULATION_ID,
    request_body,
    resident_of,
    resident_owned,
    resident_played,
    simulation_owned,
    simulation_watched,
)
from ..parsers import JSONParser
from ..residents.serializers import ResidentStateSerializer, resident_state_data
from ..schema import request_example
from ..throttles import SayThrottle
from .serializers import (
    ControlRequestSerializer,
    GoRequestSerializer,
    ObjectStateSerializer,
    ObjectStateSetSerializer,
    SayRequestSerializer,
)

# --- changing the world --------------------------------------------------------------------


class ObjectStateFilter(django_filters.FilterSet):
    search = django_filters.CharFilter(
        field_name="address", lookup_expr="icontains", label="address contains (any case)"
    )
    state = django_filters.CharFilter(lookup_expr="icontains", label="state contains")
    by_agent = django_filters.CharFilter(label='who set it; "" for a user')

    class Meta:
        model = ObjectState
        fields = ["search", "state", "by_agent"]


class ObjectStateView(generics.ListAPIView[ObjectState]):
    """The state of a simulation's game objects: list those not idle, set one."""

    serializer_class = ObjectStateSerializer
    filterset_class = ObjectStateFilter
    queryset = ObjectState.objects.none()
    parser_classes = [JSONParser]

    def get_object(self) -> ObjectState:
        # An object is set by the address in the body (PUT), never looked up by the URL;
        # DRF's OPTIONS metadata would try to.
        raise exceptions.NotFound()

    def get_queryset(self) -> QuerySet[ObjectState]:
        if getattr(self, "swagger_fake_view", False):
            return ObjectState.objects.none()
        simulation = simulation_watched(self.request, self.kwargs["simulation_pk"])
        return ObjectState.objects.filter(simulation=simulation).order_by("address")

    @extend_schema(
        summary="List the objects that are not idle",
        parameters=[SIMULATION_ID],
        responses={200: ObjectStateSerializer(many=True), **error_responses(400, 401, 404)},
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        summary="Set an object's state",
        description='In words, e.g. "burning"; "idle" clears it. Residents who see the '
        "object react at their next steps (a burning stove gets put out). An unknown "
        "address is a 400 whose `suggestions` lists the closest object addresses.",
        parameters=[SIMULATION_ID],
        request=ObjectStateSetSerializer,
        examples=request_example(
            "The stove catches fire",
            {"address": "Brindle Green:Kettle Cafe:cafe:stove", "state": "burning"},
        ),
        responses={200: ObjectStateSerializer, **error_responses(400, 401, 404, 413)},
    )
    def put(self, request: Request, simulation_pk: int) -> Response:
        simulation = simulation_owned(request, simulation_pk)
        body = request_body(ObjectStateSetSerializer, request)
        with domain_errors():
            event = object_state_set(simulation=simulation, **body)
        state = ObjectState(by_agent=event.agent, **event.payload)
        return Response(ObjectStateSerializer(state).data)


# --- stepping in ---------------------------------------------------------------------------


class ControlView(APIView):
    """Take control of a resident, or give it back."""

    parser_classes = [JSONParser]

    @extend_schema(
        summary="Take or give back control of a resident",
        description="A user-controlled resident stops, perceives and remembers like anyone, "
        "and moves and speaks only through `go` and `say`; given back, it follows its own "
        "plan again from its next step.",
        parameters=RESIDENT_PATH,
        request=ControlRequestSerializer,
        examples=request_example("Take control", {"user_controlled": True}),
        responses={200: ResidentStateSerializer, **error_responses(400, 401, 404, 413)},
    )
    def post(self, request: Request, **kwargs: Any) -> Response:
        simulation, agent = resident_owned(request, kwargs, whole=True)
        body = request_body(ControlRequestSerializer, request)
        agent = agent_take_control(
            simulation=simulation, agent=agent, user_controlled=body["user_controlled"]
        )
        return Response(resident_state_data(agent, simulation))


class GoView(APIView):
    """Send a user-controlled resident somewhere."""

    parser_classes = [JSONParser]

    @extend_schema(
        summary="Walk a user-controlled resident to a place or a tile",
        description="It walks one tile a step along a shortest path (as the simulation "
        "runs) to `address` or to `tile` (one of the two). 409 if the resident is not "
        "user-controlled; 403 if someone else plays it; 400 for an unknown address (with "
        "`suggestions`), a tile that is not walkable, or a place it cannot reach. The owner "
        "may walk any resident; a guest only the one they play.",
        parameters=RESIDENT_PATH,
        request=GoRequestSerializer,
        examples=request_example("To the cafe", {"address": "Brindle Green:Kettle Cafe:cafe"}),
        responses={200: ResidentStateSerializer, **error_responses(400, 401, 404, 409, 413)},
    )
    def post(self, request: Request, **kwargs: Any) -> Response:
        simulation, agent = resident_played(request, kwargs)
        body = request_body(GoRequestSerializer, request)
        tile = body.pop("tile", None)
        with domain_errors():
            agent = agent_go(
                simulation=simulation,
                agent=agent,
                tile=(tile[0], tile[1]) if tile else None,
                **body,
            )
        return Response(resident_state_data(agent, simulation))


class SayView(APIView):
    """A user-controlled resident says something to a resident in sight."""

    parser_classes = [JSONParser]
    throttle_classes = [SayThrottle]

    @extend_schema(
        summary="Say something to a resident in sight",
        description="The speaker must be user-controlled (409 otherwise) and the "
        "requester's to play (403 otherwise); the listener "
        "must be in the same arena within the speaker's vision radius (400 otherwise). The "
        "listener answers with one line (a person, a user-controlled resident, does not: "
        "they answer with their own `say`), and both remember the exchange. Throttled "
        "(scope `say`).",
        parameters=RESIDENT_PATH,
        request=SayRequestSerializer,
        examples=request_example(
            "A greeting", {"to": "Tomas Brenner", "text": "Hello! I am new here."}
        ),
        responses={
            201: ConversationDetailSerializer,
            **error_responses(400, 401, 404, 413, *MODEL_ERRORS),
        },
    )
    def post(self, request: Request, **kwargs: Any) -> Response:
        simulation, speaker = resident_played(request, kwargs)
        body = request_body(SayRequestSerializer, request)
        listener = resident_of(simulation, body["to"], whole=True)
        with domain_errors("to"):
            said = agent_say(
                simulation=simulation, speaker=speaker, listener=listener, text=body["text"]
            )
        return Response(_conversation(said), status=status.HTTP_201_CREATED)


def _conversation(conversation: Conversation) -> dict[str, Any]:
    conversation.line_count = len(conversation.lines)  # type: ignore[attr-defined]
    return ConversationDetailSerializer(conversation).data
