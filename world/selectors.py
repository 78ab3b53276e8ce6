"""Reads of towns, locations, simulations and events, scoped to what a user may see."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import QuerySet

from .models import Event, Location, Simulation, Town


def town_list() -> QuerySet[Town]:
    return Town.objects.defer(
        "collision", "sector_layer", "arena_layer", "game_object_layer", "spawning_layer"
    )


def location_list(*, town: Town) -> QuerySet[Location]:
    return Location.objects.filter(town=town).select_related("parent")


def simulation_list(*, user: User | AnonymousUser) -> QuerySet[Simulation]:
    """The simulations `user` owns; nobody sees another user's simulations."""
    if not user.is_authenticated:
        return Simulation.objects.none()
    return Simulation.objects.filter(owner=user).select_related("town")


def simulation_get(*, user: User | AnonymousUser, pk: int) -> Simulation:
    """Raises Simulation.DoesNotExist for another user's simulation, as for a missing one."""
    return simulation_list(user=user).get(pk=pk)


def event_list(*, simulation: Simulation) -> QuerySet[Event]:
    return Event.objects.filter(simulation=simulation).order_by("seq")
