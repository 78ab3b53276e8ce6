"""Places: the town as a resident knows it, addresses in it, the object an action uses,
and the objects one resident at a time may use."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from agents.cognition.selectors import town_addresses_cached
from world.addresses import SEPARATOR, Address
from world.models import Agent, Town

SINGLE_OCCUPANCY = ("bed", "shower", "toilet", "bathtub")


def single_occupancy(address: str) -> bool:
    """Whether the place (an object, by its name) takes one resident at a time."""
    leaf = Address.parse(address).leaf.lower()
    return any(word in leaf for word in SINGLE_OCCUPANCY)


def sector_arena(address: str) -> tuple[str, str]:
    """The sector and arena of an address ("" for the parts it does not have)."""
    place = Address.parse(address)
    return place.sector, place.arena


@dataclass(frozen=True)
class KnownPlaces:
    """The places in the agent's spatial memory: it never goes anywhere it does not know."""

    agent: Agent
    town: Town

    def known(self) -> dict[str, dict[str, list[str]]]:
        """Sector -> arena -> objects, of the agent's (first) world."""
        world: dict[str, dict[str, list[str]]] = next(iter(self.agent.spatial_memory.values()), {})
        return world

    def text(self) -> str:
        """One "sector: arena, arena" line per known sector, for the prompts."""
        return "\n".join(
            f"{sector}: {', '.join(arenas)}" for sector, arenas in self.known().items()
        )

    def nearest_arena(self, sector: str, arena: str) -> tuple[str, str]:
        """The known (sector, arena) nearest to the one named; else the agent's home."""
        known = self.known()
        if sector not in known:
            match = difflib.get_close_matches(sector, list(known), n=1, cutoff=0.0)
            sector = match[0] if match else sector_arena(self.agent.living_area)[0]
        arenas = known.get(sector) or {}
        if arena not in arenas:
            match = difflib.get_close_matches(arena, list(arenas), n=1, cutoff=0.0)
            arena = match[0] if match else ""
        if not arena:
            return sector_arena(self.agent.living_area)
        return sector, arena

    def address(self, sector: str, arena: str, obj: str = "") -> str:
        """The address in the agent's world. An empty sector or arena is kept as an empty
        part (not dropped as `address_format` would): plan rows have always been so."""
        world = next(iter(self.agent.spatial_memory), self.town.world_name)
        return SEPARATOR.join([world, sector, arena] + ([obj] if obj else []))

    def objects_in(self, sector: str, arena: str) -> list[str]:
        return list(self.known().get(sector, {}).get(arena, []))

    def object_address(self, sector: str, arena: str, wanted: str) -> str:
        """The known object of the arena nearest to `wanted` that the town has, else the
        arena itself."""
        addresses = town_addresses_cached(town_id=self.town.pk)
        candidates = [
            o for o in self.objects_in(sector, arena) if self.address(sector, arena, o) in addresses
        ]
        match = difflib.get_close_matches(wanted, candidates, n=1, cutoff=0.0)
        if match:
            return self.address(sector, arena, match[0])
        return self.address(sector, arena)

    def alike(self, address: str) -> list[str]:
        """The other known objects of the address's arena of the same kind, by the last
        word of their names ("second bed" beside "bed"), that the town has."""
        place = Address.parse(address)
        kind = place.leaf.lower().split()[-1:] if place.is_object else []
        addresses = town_addresses_cached(town_id=self.town.pk)
        return [
            other
            for name in self.objects_in(place.sector, place.arena)
            if name.lower().split()[-1:] == kind and name != place.leaf
            for other in [self.address(place.sector, place.arena, name)]
            if other in addresses
        ]

    def resolve(self, sector: str, arena: str, where: str) -> str:
        """`where` as an address: an address stays, a bare name ("bed") is the arena's
        object nearest to it."""
        return where if SEPARATOR in where else self.object_address(sector, arena, where)
