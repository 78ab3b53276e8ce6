"""Views of the user controls: interview, inner voice, object states, stepping in.

Thin: they check the requester owns the simulation, validate the body, and hand over to
`agents.controls`, whose errors become the API's (400 with suggestions for an unknown
address, 409 when the resident's state does not allow it, 503 when a model fails).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol

import django_filters
from django.contrib.auth.models import AnonymousUser, User
from django.db.models import QuerySet
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import exceptions, generics, status
from rest_framework.parsers import JSONParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from agents import controls
from agents.models import Conversation, Interview, ObjectState
from llm.errors import BudgetExhausted, ModelCallFailed
from memories.selectors import memories_by_id
from world.models import Agent, Simulation
from world.selectors import address_at, simulation_get, town_cached

from .cognition_serializers import ConversationDetailSerializer
from .control_serializers import (
    ControlRequestSerializer,
    GoRequestSerializer,
    InterviewRequestSerializer,
    InterviewSerializer,
    NewcomerSerializer,
    ObjectStateSerializer,
    ObjectStateSetSerializer,
    ResidentStateSerializer,
    SayRequestSerializer,
    WhisperRequestSerializer,
    WhisperSerializer,
)
from .errors import BudgetSpent, Conflict, error_responses
from .filters import StrictBooleanFilter
from .memory_views import PATH, _resident, retrieval_errors
from .throttles import InterviewThrottle, SayThrottle, WhisperThrottle

SIMULATION_PK = OpenApiParameter(
    "simulation_pk", OpenApiTypes.INT, OpenApiParameter.PATH, description="simulation id"
)


class ModelUnavailable(exceptions.APIException):
    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_detail = "The language model failed; try again later."
    default_code = "model_unavailable"


@contextmanager
def control_errors(field: str = "address", fields: dict[str, str] | None = None) -> Iterator[None]:
    """The errors of `agents.controls` (and of the retrieval and models it uses) as the
    API's; an unknown address names the closest known ones in `detail.suggestions`, under
    `field` (or the field `fields` names for that address)."""
    try:
        with retrieval_errors():
            yield
    except controls.UnknownAddress as exc:
        name = (fields or {}).get(exc.address, field)
        raise exceptions.ValidationError(
            {name: [str(exc)], "suggestions": exc.suggestions}, code="unknown_address"
        ) from exc
    except (controls.Unreachable, controls.NotWalkable) as exc:
        raise exceptions.ValidationError({field: [str(exc)]}) from exc
    except controls.ControlConflict as exc:
        raise Conflict(str(exc)) from exc
    except controls.ControlRefused as exc:
        raise exceptions.ValidationError([str(exc)]) from exc
    except BudgetExhausted as exc:
        raise BudgetSpent(str(exc)) from exc
    except ModelCallFailed as exc:
        raise ModelUnavailable(str(exc)) from exc


def _simulation(request: Request, pk: int) -> Simulation:
    user: User | AnonymousUser = request.user
    try:
        return simulation_get(user=user, pk=pk)
    except Simulation.DoesNotExist:
        raise exceptions.NotFound() from None


def _owned(request: Request, kwargs: dict[str, Any]) -> tuple[Simulation, Agent]:
    """The requester's simulation and its resident (every field), or 404."""
    simulation, agent = _resident(request, kwargs)
    return simulation, Agent.objects.get(pk=agent.pk)


def _state(agent: Agent, simulation: Simulation) -> dict[str, Any]:
    town = town_cached(pk=simulation.town_id)
    places = {agent.tile: address_at(town=town, tile=agent.tile)}
    return ResidentStateSerializer(agent, context={"places": places}).data


def _body(serializer_class: type[Any], request: Request) -> dict[str, Any]:
    body = serializer_class(data=request.data)
    body.is_valid(raise_exception=True)
    return dict(body.validated_data)


MODEL_ERRORS = (409, 429, 503)


def _example(name: str, value: dict[str, Any]) -> list[OpenApiExample]:
    return [OpenApiExample(name, value=value, request_only=True)]


# --- interview -----------------------------------------------------------------------------


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
        parameters=PATH,
        request=InterviewRequestSerializer,
        examples=_example(
            "A reporter asks",
            {"persona": "a news reporter", "question": "What are you planning this week?"},
        ),
        responses={
            201: InterviewSerializer,
            **error_responses(400, 401, 404, 413, *MODEL_ERRORS),
        },
    )
    def post(self, request: Request, **kwargs: Any) -> Response:
        simulation, agent = _owned(request, kwargs)
        body = _body(InterviewRequestSerializer, request)
        with control_errors():
            interview = controls.agent_interview(simulation=simulation, agent=agent, **body)
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
        _, agent = _resident(self.request, self.kwargs)
        return Interview.objects.filter(agent=agent).select_related("agent").order_by("number")

    @extend_schema(
        summary="List a resident's interviews",
        parameters=PATH,
        responses={200: InterviewSerializer(many=True), **error_responses(400, 401, 404)},
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


# --- the inner voice -----------------------------------------------------------------------


class WhisperView(APIView):
    """The inner voice: a statement the resident takes as its own thought."""

    parser_classes = [JSONParser]
    throttle_classes = [WhisperThrottle]

    @extend_schema(
        summary="Whisper to a resident (its inner voice)",
        description="The statement becomes a thought memory of importance at least 8, and "
        "the resident re-plans the rest of its day from it at its next step. Throttled "
        "(scope `whisper`).",
        parameters=PATH,
        request=WhisperRequestSerializer,
        examples=_example(
            "An invitation to make",
            {"statement": "I should invite Klaus Mueller to my Valentine's Day party"},
        ),
        responses={201: WhisperSerializer, **error_responses(400, 401, 404, 413, *MODEL_ERRORS)},
    )
    def post(self, request: Request, **kwargs: Any) -> Response:
        simulation, agent = _owned(request, kwargs)
        body = _body(WhisperRequestSerializer, request)
        with control_errors():
            event = controls.agent_whisper(
                simulation=simulation, agent=agent, statement=body["statement"]
            )
        memory = controls.whisper_memory(event=event)
        result = {
            "seq": event.seq,
            "step": event.step,
            "sim_time": event.sim_time,
            "resident": agent.name,
            "statement": event.payload["statement"],
            "memory": memories_by_id(ids=[memory.pk])[0] if memory else None,
        }
        return Response(WhisperSerializer(result).data, status=status.HTTP_201_CREATED)


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
        simulation = _simulation(self.request, self.kwargs["simulation_pk"])
        return ObjectState.objects.filter(simulation=simulation).order_by("address")

    @extend_schema(
        summary="List the objects that are not idle",
        parameters=[SIMULATION_PK],
        responses={200: ObjectStateSerializer(many=True), **error_responses(400, 401, 404)},
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        summary="Set an object's state",
        description='In words, e.g. "burning"; "idle" clears it. Residents who see the '
        "object react at their next steps (a burning stove gets put out). An unknown "
        "address is a 400 whose `detail.suggestions` lists the closest object addresses.",
        parameters=[SIMULATION_PK],
        request=ObjectStateSetSerializer,
        examples=_example(
            "The stove catches fire",
            {"address": "the Ville:Hobbs Cafe:cafe:cooking area", "state": "burning"},
        ),
        responses={200: ObjectStateSerializer, **error_responses(400, 401, 404, 413)},
    )
    def put(self, request: Request, simulation_pk: int) -> Response:
        simulation = _simulation(request, simulation_pk)
        body = _body(ObjectStateSetSerializer, request)
        with control_errors():
            event = controls.object_state_set(simulation=simulation, **body)
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
        parameters=PATH,
        request=ControlRequestSerializer,
        examples=_example("Take control", {"user_controlled": True}),
        responses={200: ResidentStateSerializer, **error_responses(400, 401, 404, 413)},
    )
    def post(self, request: Request, **kwargs: Any) -> Response:
        simulation, agent = _owned(request, kwargs)
        body = _body(ControlRequestSerializer, request)
        agent = controls.agent_take_control(
            simulation=simulation, agent=agent, user_controlled=body["user_controlled"]
        )
        return Response(_state(agent, simulation))


class GoView(APIView):
    """Send a user-controlled resident somewhere."""

    parser_classes = [JSONParser]

    @extend_schema(
        summary="Walk a user-controlled resident to a place",
        description="It walks one tile a step along a shortest path (as the simulation "
        "runs). 409 if the resident is not user-controlled; 400 for an unknown address "
        "(with `detail.suggestions`) or one it cannot reach.",
        parameters=PATH,
        request=GoRequestSerializer,
        examples=_example("To the cafe", {"address": "the Ville:Hobbs Cafe:cafe"}),
        responses={200: ResidentStateSerializer, **error_responses(400, 401, 404, 409, 413)},
    )
    def post(self, request: Request, **kwargs: Any) -> Response:
        simulation, agent = _owned(request, kwargs)
        body = _body(GoRequestSerializer, request)
        with control_errors():
            agent = controls.agent_go(simulation=simulation, agent=agent, **body)
        return Response(_state(agent, simulation))


class SayView(APIView):
    """A user-controlled resident says something to a resident in sight."""

    parser_classes = [JSONParser]
    throttle_classes = [SayThrottle]

    @extend_schema(
        summary="Say something to a resident in sight",
        description="The speaker must be user-controlled (409 otherwise); the listener "
        "must be in the same arena within the speaker's vision radius (400 otherwise). The "
        "listener answers with one line, and both remember the exchange. Throttled (scope "
        "`say`).",
        parameters=PATH,
        request=SayRequestSerializer,
        examples=_example("A greeting", {"to": "Klaus Mueller", "text": "Hello! I am new here."}),
        responses={
            201: ConversationDetailSerializer,
            **error_responses(400, 401, 404, 413, *MODEL_ERRORS),
        },
    )
    def post(self, request: Request, **kwargs: Any) -> Response:
        simulation, speaker = _owned(request, kwargs)
        body = _body(SayRequestSerializer, request)
        _, listener = _owned(request, {**kwargs, "resident": body["to"]})
        with control_errors("to"):
            said = controls.agent_say(
                simulation=simulation, speaker=speaker, listener=listener, text=body["text"]
            )
        return Response(_conversation(said), status=status.HTTP_201_CREATED)


def _conversation(conversation: Conversation) -> dict[str, Any]:
    conversation.line_count = len(conversation.lines)  # type: ignore[attr-defined]
    return ConversationDetailSerializer(conversation).data


class _ChildView(Protocol):
    def simulation(self) -> Simulation: ...


class NewcomerCreateMixin:
    """POST on a simulation's residents: a user-controlled newcomer steps in."""

    @extend_schema(
        summary="Step in as a newcomer",
        description="A new resident, user-controlled, with the identity given, starting "
        "at `address` (a place of the town) or `tile`. It knows every arena of the town "
        "(`knows: town`) or only the one it starts in (`knows: here`); `memories` are its "
        "first thoughts. The name must be new in the simulation.",
        parameters=[SIMULATION_PK],
        request=NewcomerSerializer,
        examples=_example(
            "A reporter moves in",
            {
                "name": "Ada Lovelace",
                "age": 36,
                "innate": "curious, precise",
                "currently": "Ada Lovelace is a reporter new to the Ville",
                "address": "the Ville:Hobbs Cafe:cafe",
                "memories": ["I want to meet the owner of Hobbs Cafe"],
            },
        ),
        responses={201: ResidentStateSerializer, **error_responses(400, 401, 404, 413, 503)},
    )
    def create(self: _ChildView, request: Request, *args: Any, **kwargs: Any) -> Response:
        simulation = self.simulation()
        body = _body(NewcomerSerializer, request)
        fields = {f.name for f in controls.Identity.__dataclass_fields__.values()}
        identity = controls.Identity(**{k: v for k, v in body.items() if k in fields})
        tile = body.get("tile")
        with control_errors(fields={body["living_area"]: "living_area"}):
            agent = controls.newcomer_create(
                simulation=simulation,
                name=body["name"],
                identity=identity,
                address=body.get("address"),
                tile=(tile[0], tile[1]) if tile else None,
                knows_town=body["knows"] == "town",
                memories=body["memories"],
            )
        return Response(_state(agent, simulation), status=status.HTTP_201_CREATED)
