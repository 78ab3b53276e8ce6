"""Views of simulations: create, fork, run control and progress, and the event log."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Count, OuterRef, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import exceptions, mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle

from agents.services import simulation_create_from_base, simulation_fork_checked
from runtime.engine import (
    TickDeferred,
    simulation_delete,
    simulation_pause,
    simulation_progress,
    simulation_resume,
    simulation_run,
)
from world.models import Agent, Event, Simulation
from world.selectors import event_list, simulation_joinable

from ..errors import domain_errors, error_responses
from ..filters import EventFilter
from ..lookups import SIMULATION_ID, SimulationChildViewSet, requester, simulations_owned
from ..pagination import EventCursorPagination
from ..parsers import JSONParser
from ..throttles import CreateThrottle, ForkThrottle, RunThrottle
from .serializers import (
    EventSerializer,
    ProgressSerializer,
    SimulationCreateSerializer,
    SimulationForkSerializer,
    SimulationRunSerializer,
    SimulationSerializer,
)

# A run whose first tick waits for the broker: claimed, and reported as queued.
QUEUED = (
    "the first tick will be sent when the broker is back: the workers' watchdog resends "
    "a stalled run's tick within seconds of it"
)
RUN_RESPONSES = {
    200: ProgressSerializer,
    202: OpenApiResponse(
        ProgressSerializer,
        description="Claimed, but the broker could not take the first tick: the run is "
        "queued (`waiting_for` says so) and starts once the broker is back.",
    ),
}


def _simulations(request: Request, *, watched: bool = False) -> QuerySet[Simulation]:
    residents = (
        Agent.objects.filter(simulation=OuterRef("pk"))
        .order_by()
        .values("simulation")
        .annotate(n=Count("pk"))
        .values("n")
    )
    user: User | AnonymousUser = request.user
    simulations = simulation_joinable(user=user) if watched else simulations_owned(request)
    return simulations.select_related(
        None
    ).annotate(  # only the town's id is sent; its row holds the tile layers
        resident_count=Coalesce(Subquery(residents), Value(0))
    )


@extend_schema_view(
    list=extend_schema(
        summary="List my simulations",
        responses={200: SimulationSerializer, **error_responses(401)},
    ),
    retrieve=extend_schema(
        summary="A simulation", responses={200: SimulationSerializer, **error_responses(401, 404)}
    ),
)
class SimulationViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    viewsets.GenericViewSet[Simulation],
):
    """The requester's simulations; anyone else's are not found."""

    serializer_class = SimulationSerializer
    queryset = Simulation.objects.none()
    parser_classes = [JSONParser]  # typed JSON bodies only; forms would make ints strings

    def get_queryset(self) -> QuerySet[Simulation]:
        # A guest reads one shared with them (the viewer does); the list and every change
        # are the owner's.
        return _simulations(self.request, watched=self.action in ("retrieve", "progress"))

    def get_throttles(self) -> list[BaseThrottle]:
        # Starting a run queues work for the workers, creating a simulation seeds its
        # memories (model calls), a fork copies a log: throttled per user.
        match self.action:
            case "run" | "resume":
                return [RunThrottle()]
            case "create":
                return [CreateThrottle()]
            case "fork":
                return [ForkThrottle()]
        return super().get_throttles()

    def _created(self, simulation: Simulation) -> Response:
        fresh = self.get_queryset().get(pk=simulation.pk)
        return Response(self.get_serializer(fresh).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Create a simulation from a shipped base",
        description="Throttled (scope `create`): seeding the residents' memories calls the "
        "model (about 250 calls for the 25-resident base).",
        request=SimulationCreateSerializer,
        responses={201: SimulationSerializer, **error_responses(400, 401, 429)},
    )
    def create(self, request: Request) -> Response:
        body = SimulationCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        with domain_errors():
            simulation = simulation_create_from_base(
                owner=requester(request), **body.validated_data
            )
        return self._created(simulation)

    @extend_schema(
        summary="Delete a simulation",
        description="Removes the simulation with its event log, residents, memories, "
        "evaluations and model-call ledger, in one transaction. Refused (409) while it runs "
        "(pause it first), while an evaluation of it is under way, or while another "
        "simulation's evaluation measures it; nothing is removed then.",
        request=None,
        responses={204: None, **error_responses(401, 404, 409)},
    )
    def destroy(self, request: Request, pk: str | None = None) -> Response:
        simulation = self.get_object()
        if request.data:  # read, so a hostile body is the parser's 400, not ignored
            raise exceptions.ValidationError({"non_field_errors": ["a delete takes no body"]})
        with domain_errors():
            simulation_delete(simulation=simulation)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        summary="Fork a simulation at a step",
        description="A new simulation, owned by the requester, whose event log is this one's "
        "up to and including `step`. Throttled (scope `fork`).",
        request=SimulationForkSerializer,
        responses={201: SimulationSerializer, **error_responses(400, 401, 404, 429)},
    )
    @action(detail=True, methods=["post"])
    def fork(self, request: Request, pk: str | None = None) -> Response:
        source = self.get_object()
        body = SimulationForkSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        step = body.validated_data.get("step", source.step)
        with domain_errors("step", value_errors=True):  # a step outside the source's log
            child = simulation_fork_checked(
                simulation=source,
                step=step,
                name=body.validated_data["name"],
                owner=requester(request),
                seed=body.validated_data.get("seed"),
            )
        return self._created(child)

    def _run_control(self, control: Callable[[Simulation], object]) -> Response:
        simulation = self.get_object()
        try:
            with domain_errors():
                control(simulation)
        except TickDeferred:  # claimed; the broker is down or hung: queued, not failed
            progress = simulation_progress(simulation=simulation)
            data = {**ProgressSerializer(progress).data, "waiting_for": QUEUED}
            return Response(data, status=status.HTTP_202_ACCEPTED)
        return Response(ProgressSerializer(simulation_progress(simulation=simulation)).data)

    @extend_schema(
        summary="Run a number of steps or until a sim time",
        description="Claims the simulation (409 if it is already running) and queues its "
        "first tick; Celery workers advance it. Poll `progress`. If the broker cannot take "
        "the tick, the run stays claimed and the answer is 202 (queued). Throttled (scope "
        "`run`).",
        request=SimulationRunSerializer,
        responses={**RUN_RESPONSES, **error_responses(400, 401, 404, 409, 429)},
    )
    @action(detail=True, methods=["post"])
    def run(self, request: Request, pk: str | None = None) -> Response:
        body = SimulationRunSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return self._run_control(
            lambda simulation: simulation_run(simulation=simulation, **body.validated_data)
        )

    @extend_schema(
        summary="Pause after the tick in flight",
        request=None,
        responses={200: ProgressSerializer, **error_responses(401, 404, 409)},
    )
    @action(detail=True, methods=["post"])
    def pause(self, request: Request, pk: str | None = None) -> Response:
        return self._run_control(lambda simulation: simulation_pause(simulation=simulation))

    @extend_schema(
        summary="Resume a paused, failed or budget-stopped run towards its target",
        description="As `run`: 202 (queued) when the broker cannot take the first tick.",
        request=None,
        responses={**RUN_RESPONSES, **error_responses(400, 401, 404, 409, 429)},
    )
    @action(detail=True, methods=["post"])
    def resume(self, request: Request, pk: str | None = None) -> Response:
        return self._run_control(lambda simulation: simulation_resume(simulation=simulation))

    @extend_schema(
        summary="Progress of the current or last run",
        responses={200: ProgressSerializer, **error_responses(401, 404)},
    )
    @action(detail=True, methods=["get"])
    def progress(self, request: Request, pk: str | None = None) -> Response:
        progress = simulation_progress(simulation=self.get_object())
        return Response(ProgressSerializer(progress).data)


@extend_schema_view(
    list=extend_schema(
        summary="Read a simulation's event log",
        description="Events in `seq` order, paged by cursor: follow `next` until it is null.",
        parameters=[SIMULATION_ID],
        responses={200: EventSerializer, **error_responses(400, 401, 404)},
    ),
)
class EventViewSet(mixins.ListModelMixin, SimulationChildViewSet[Event]):
    """The append-only event log of one simulation (a guest's too: the viewer follows it)."""

    watchable = True

    serializer_class = EventSerializer
    filterset_class = EventFilter
    pagination_class = EventCursorPagination
    queryset = Event.objects.none()

    def get_queryset(self) -> QuerySet[Event]:
        if getattr(self, "swagger_fake_view", False):
            return Event.objects.none()
        return event_list(simulation=self.simulation())
