"""What a request names, looked up once for every view: requester, simulation, resident, body.

A user only ever sees their own simulations (anyone else's is a 404, as a missing one); a
resident is named in the URL by its id or its name."""

from __future__ import annotations

from typing import Any, TypeVar

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Model, QuerySet
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from rest_framework import exceptions, viewsets
from rest_framework.request import Request

from world.models import Agent, Simulation
from world.selectors import simulation_get, simulation_list

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


def request_body(serializer_class: type[Any], request: Request) -> dict[str, Any]:
    """The request's body as `serializer_class` validates it (a 400 otherwise)."""
    body = serializer_class(data=request.data)
    body.is_valid(raise_exception=True)
    return dict(body.validated_data)


class SimulationChildViewSet(viewsets.GenericViewSet[_M]):
    """Views under /simulations/{simulation_pk}/: the requester's simulation or 404."""

    def simulation(self) -> Simulation:
        if not hasattr(self, "_simulation"):
            self._simulation = simulation_owned(self.request, self.kwargs["simulation_pk"])
        return self._simulation
