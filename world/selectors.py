"""Reads of towns, locations, simulations and events, scoped to what a user may see."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Q, QuerySet

from .models import Event, Location, Share, Simulation, Town

TOWN_LAYERS = ("collision", "sector_layer", "arena_layer", "game_object_layer", "spawning_layer")


def towns_visible(*, user: User | AnonymousUser) -> QuerySet[Town]:
    """The towns `user` may see and use: their own and the shipped ones (no owner)."""
    if not user.is_authenticated:
        return Town.objects.none()
    return Town.objects.filter(Q(owner__isnull=True) | Q(owner=user))


def towns_watchable(*, user: User | AnonymousUser) -> QuerySet[Town]:
    """The towns `user` may see, and those of the simulations shared with them (a guest's
    viewer draws the owner's town)."""
    if not user.is_authenticated:
        return Town.objects.none()
    shared = simulation_joinable(user=user).values("town_id")
    return Town.objects.filter(Q(owner__isnull=True) | Q(owner=user) | Q(pk__in=shared))


def town_named(*, owner: User | None, name: str) -> Town | None:
    """The town a base of `owner` names: the owner's own of that name, else a shipped one
    (None when neither is imported; another user's town is never found)."""
    towns = Town.objects.filter(name=name)
    mine = towns.filter(owner=owner).first() if owner is not None else None
    return mine or towns.filter(owner__isnull=True).first()


def location_list(*, town: Town) -> QuerySet[Location]:
    return Location.objects.filter(town=town)


def simulation_list(*, user: User | AnonymousUser) -> QuerySet[Simulation]:
    """The simulations `user` owns; nobody sees another user's simulations."""
    if not user.is_authenticated:
        return Simulation.objects.none()
    return Simulation.objects.filter(owner=user)


def simulation_get(*, user: User | AnonymousUser, pk: int) -> Simulation:
    """Raises Simulation.DoesNotExist for another user's simulation, as for a missing one."""
    return simulation_list(user=user).get(pk=pk)


def simulation_joinable(*, user: User | AnonymousUser) -> QuerySet[Simulation]:
    """The simulations `user` may watch and join: their own, and those their owners share
    with everyone logged in or with `user` among the guests."""
    if not user.is_authenticated:
        return Simulation.objects.none()
    shared = Q(share=Share.ANYONE) | Q(share=Share.INVITED, guests=user)
    return Simulation.objects.filter(Q(owner=user) | shared).distinct()


def simulation_joined(*, user: User | AnonymousUser, pk: int) -> Simulation:
    """Raises Simulation.DoesNotExist for a simulation `user` may not join, as for a
    missing one."""
    return simulation_joinable(user=user).get(pk=pk)


def event_list(*, simulation: Simulation) -> QuerySet[Event]:
    return Event.objects.filter(simulation=simulation).order_by("seq")


def events_after(*, simulation_id: int, after: int, limit: int) -> list[Event]:
    """Up to `limit` committed events of a simulation with a seq above `after`, in seq order
    (the log is gap-free and appended under a row lock, so a later seq never commits first:
    reading on from the last seq seen misses nothing)."""
    return list(
        Event.objects.filter(simulation_id=simulation_id, seq__gt=after).order_by("seq")[:limit]
    )


def simulations_last_seq(*, ids: list[int]) -> dict[int, int]:
    """The last committed seq of each of these simulations that exists, in one query."""
    rows = Simulation.objects.filter(pk__in=ids).values_list("pk", "last_seq")
    return {int(pk): int(last) for pk, last in rows}


def arena_addresses(*, town: Town) -> dict[int, str]:
    """Arena block id -> arena address, from the town's legend (no query)."""
    return {
        int(row[0]): ":".join(cell.strip() for cell in row[1:4]) for row in town.legends["arena"]
    }


def address_at(*, town: Town, tile: tuple[int, int]) -> str:
    """The address of the deepest place (arena, else sector, else world) at a tile."""
    x, y = tile
    index = town.tile_index(x, y)
    arena = arena_addresses(town=town).get(town.arena_layer[index])
    if arena:
        return arena
    for row in town.legends["sector"]:
        if int(row[0]) == town.sector_layer[index]:
            return ":".join(cell.strip() for cell in row[1:3])
    return town.world_name


_towns: dict[int, Town] = {}


def town_cached(*, pk: int) -> Town:
    """A town with its layers, loaded once per process: towns never change once imported
    (a re-import makes a new row, and a town with simulations cannot be deleted)."""
    if pk not in _towns:
        _towns[pk] = Town.objects.get(pk=pk)
    return _towns[pk]
