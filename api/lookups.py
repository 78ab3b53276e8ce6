"""What a request names, looked up once for every view: requester, simulation, resident, body.

A user only ever sees their own simulations (anyone else's is a 404, as a missing one),
and watches and plays in those their owners share with them (`simulation_watched`: the
reads the viewer makes, and the play controls); a resident is named in the URL by its id
or its name."""

from __future__ import annotations

from typing import Any, TypeVar

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Model, QuerySet
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from rest_framework import exceptions, viewsets
from rest_framework.request import Request

from runtime.controls import control_check
from world.models import Agent, Simulation
from world.selectors import simulation_get, simulation_joined, simulation_list

from .errors import domain_errors

_M = TypeVar("_M", bound=Model)

SIMULATION_ID = OpenApiParameter(
    "simulation_pk", OpenApiTypes.INT, OpenApiParameter.PATH, description="simulation id"
)
RESIDENT = OpenApiParameter(
    "resident", OpenApiTypes.STR, OpenApiParameter.PATH, description="resident id or name"
)
RESIDENT_ROUTE = "simulations/<int:simulation_pk>/residents/<str:resident>"  # a route's prefix
RESIDENT_PATH = [SIMULATION_ID, RESIDENT]  # /simulations/{simulation_pk}/residents/{resident}/
# What reads of a resident's memories, plans and reflections use of its row.
RESIDENT_FIELDS = ("id", "simulation_id", "name", "recency_decay")


def requester(request: Request) -> User:
    """The authenticated user (IsAuthenticated has turned anyone else away already)."""
    if not isinstance(request.user, User):
        raise exceptions.NotAuthenticated()
    return request.user


def simulations_owned(request: Request) -> QuerySet[Simulation]:
    """The requester's simulations; nobody sees another user's."""
    user: User | AnonymousUser = request.user
    return simulation_list(user=user)


def simulation_owned(request: Request, pk: int) -> Simulation:
    """The requester's simulation `pk`, or 404 (for anyone else's as for a missing one)."""
    user: User | AnonymousUser = request.user
    try:
        return simulation_get(user=user, pk=pk)
    except Simulation.DoesNotExist:
        raise exceptions.NotFound() from None


def simulation_watched(request: Request, pk: int) -> Simulation:
    """The requester's simulation `pk` or one shared with them, or 404."""
    user: User | AnonymousUser = request.user
    try:
        return simulation_joined(user=user, pk=pk)
    except Simulation.DoesNotExist:
        raise exceptions.NotFound() from None


def resident_in(residents: QuerySet[Agent], key: str) -> Agent:
    """The resident among `residents` that `key` names: all digits is its id, anything else
    its name (a name always has a letter); 404 if there is none or `key` cannot be one."""
    lookup = {"pk": int(key)} if key.isascii() and key.isdigit() else {"name": key}
    try:
        return residents.get(**lookup)
    except (Agent.DoesNotExist, ValueError):  # ValueError: e.g. a NUL, which no text holds
        raise exceptions.NotFound() from None


def resident_of(simulation: Simulation, key: str, *, whole: bool = False) -> Agent:
    """The resident of `simulation` that `key` names, or 404: its `RESIDENT_FIELDS` only,
    or with `whole` every field."""
    residents = Agent.objects.filter(simulation=simulation)
    return resident_in(residents if whole else residents.only(*RESIDENT_FIELDS), key)


def resident_owned(
    request: Request, kwargs: dict[str, Any], *, whole: bool = False
) -> tuple[Simulation, Agent]:
    """The requester's simulation and its resident the URL names (`simulation_pk`,
    `resident`), or 404; see `resident_of` for `whole`."""
    simulation = simulation_owned(request, kwargs["simulation_pk"])
    return simulation, resident_of(simulation, kwargs["resident"], whole=whole)


def resident_played(request: Request, kwargs: dict[str, Any]) -> tuple[Simulation, Agent]:
    """The simulation the requester may watch and its resident the URL names, which the
    requester may act for (the owner for any, a guest for their own: 403 otherwise)."""
    simulation = simulation_watched(request, kwargs["simulation_pk"])
    agent = resident_of(simulation, kwargs["resident"], whole=True)
    with domain_errors():
        control_check(user=requester(request), simulation=simulation, agent=agent)
    return simulation, agent


def request_body(serializer_class: type[Any], request: Request) -> dict[str, Any]:
    """The request's body as `serializer_class` validates it (a 400 otherwise)."""
    body = serializer_class(data=request.data)
    body.is_valid(raise_exception=True)
    return dict(body.validated_data)


class SimulationChildViewSet(viewsets.GenericViewSet[_M]):
    """Views under /simulations/{simulation_pk}/: the requester's simulation or 404; with
    `watchable`, reads (GET, HEAD) of one shared with the requester too."""

    watchable = False

    def simulation(self) -> Simulation:
        if not hasattr(self, "_simulation"):
            pk = self.kwargs["simulation_pk"]
            watching = self.watchable and self.request.method in ("GET", "HEAD", "OPTIONS")
            self._simulation = (
                simulation_watched(self.request, pk)
                if watching
                else simulation_owned(self.request, pk)
            )
        return self._simulation
