"""Addresses of the location tree: "world:sector:arena:object", parsed and formatted here.

Every other module reads an address through `Address` instead of splitting on ":".
"""

from __future__ import annotations

from dataclasses import dataclass

SEPARATOR = ":"


@dataclass(frozen=True)
class Address:
    """A place in the tree; the parts below the deepest given one are empty."""

    world: str
    sector: str = ""
    arena: str = ""
    object: str = ""

    @classmethod
    def parse(cls, text: str) -> Address:
        """Up to four parts; a fifth or later part stays in the object's name."""
        parts = text.split(SEPARATOR, 3)
        return cls(*parts) if parts != [""] else cls("")

    @property
    def depth(self) -> int:
        """1 for a world, 2 a sector, 3 an arena, 4 an object (0 for the empty address)."""
        return sum(1 for part in (self.world, self.sector, self.arena, self.object) if part)

    @property
    def is_object(self) -> bool:
        return bool(self.object)

    @property
    def arena_address(self) -> str:
        """The arena this place is in (or the place itself, above an arena)."""
        return address_format(self.world, self.sector, self.arena)

    @property
    def leaf(self) -> str:
        """The deepest part's name: the object, else the arena, sector or world."""
        return self.object or self.arena or self.sector or self.world

    @property
    def below_world(self) -> str:
        """The address without its world part ("Hobbs Cafe:cafe")."""
        return address_format(self.sector, self.arena, self.object)

    def __str__(self) -> str:
        return address_format(self.world, self.sector, self.arena, self.object)


def address_format(*parts: str) -> str:
    """Join the given parts, stopping at the first empty one."""
    joined: list[str] = []
    for part in parts:
        if not part:
            break
        joined.append(part)
    return SEPARATOR.join(joined)
