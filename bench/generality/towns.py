"""Generated towns: a street between two rows of buildings, each building a sector of one
or two arenas with objects, written as a `smallville-town/1` grid (docs/authoring.md) so
it passes the same checks as a user's town file."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Literal

from bench.generality import words

Role = Literal["home", "work", "eat", "shop", "public"]
ROOM_WIDTH = 3  # an arena's tiles across, inside a building
ROOM_HEIGHT = 3
SPARE_BEDS = ("second bed", "third bed")  # housemates sleep in beds of their own


@dataclass(frozen=True)
class Place:
    """A sector of a generated town: its name, what it is for (`role`), its kind ("bakery",
    "cottage") and its arenas with their objects."""

    sector: str
    role: Role
    kind: str
    arenas: words.Rooms
    trade: words.Trade | None = None

    def address(self, world: str, arena: int = 0) -> str:
        return f"{world}:{self.sector}:{self.arenas[arena][0]}"


def proper_name(rng: random.Random, taken: set[str]) -> str:
    """A made-up proper name ("Korwick"), none of `taken` (which it joins)."""
    while True:
        name = rng.choice(words.ONSETS) + rng.choice(words.CODAS)
        if name.lower() not in taken:
            taken.add(name.lower())
            return name


def places_drawn(
    rng: random.Random, *, homes: int, trades: list[words.Trade], taken: set[str]
) -> list[Place]:
    """The town's sectors: `homes` homes, one workplace per trade, one or two places to
    eat, a shop and a public place, named from made-up names and the lists' kinds."""
    places: list[Place] = []
    for _ in range(homes):
        kind = rng.choice(words.HOMES)
        rooms = rng.choice(words.HOME_ROOMS)
        places.append(Place(f"{proper_name(rng, taken)} {kind}", "home", kind, rooms))
    for trade in trades:
        places.append(
            Place(
                f"{proper_name(rng, taken)} {trade.kind}", "work", trade.kind, trade.arenas, trade
            )
        )
    for kind, rooms in rng.sample(words.EATERIES, rng.choice((1, 2))):
        places.append(Place(f"{proper_name(rng, taken)} {kind}", "eat", kind, rooms))
    kind, rooms = rng.choice(words.SHOPS)
    places.append(Place(f"{proper_name(rng, taken)} {kind}", "shop", kind, rooms))
    kind, rooms = rng.choice(words.PUBLIC)
    places.append(Place(f"{proper_name(rng, taken)} {kind}", "public", kind, rooms))
    rng.shuffle(places)
    return places


def _chars() -> list[str]:
    """Legend characters: letters, digits, then Latin-1 and beyond, never '#' or '.'."""
    plain = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    return [*plain, *(chr(c) for c in range(0xC0, 0x2FF))]


def town_file(
    *, name: str, world: str, places: list[Place], rng: random.Random, extra_beds: dict[str, int]
) -> dict[str, Any]:
    """The grid town of `places`: buildings along the top and the bottom of a two-tile
    street, each with a door onto it. `extra_beds` gives a home's sector more beds (one a
    resident) in its first arena."""
    per_row = (len(places) + 1) // 2
    widths = [ROOM_WIDTH * len(p.arenas) for p in places]
    row_places = [places[:per_row], places[per_row:]]
    row_widths = [widths[:per_row], widths[per_row:]]
    width = max(sum(w) + len(w) + 1 for w in row_widths)
    height = 2 * ROOM_HEIGHT + 6
    grid = [["#"] * width for _ in range(height)]
    for y in (ROOM_HEIGHT + 2, ROOM_HEIGHT + 3):  # the street
        for x in range(1, width - 1):
            grid[y][x] = "."
    chars = iter(_chars())
    legend: dict[str, dict[str, Any]] = {"#": {"wall": True}, ".": {}}
    for row, (shelf, shelf_widths) in enumerate(zip(row_places, row_widths, strict=True)):
        top = 1 if row == 0 else ROOM_HEIGHT + 5
        door_y = ROOM_HEIGHT + 1 if row == 0 else ROOM_HEIGHT + 4
        inner_y = top + ROOM_HEIGHT - 1 if row == 0 else top
        x = 1
        for place, span in zip(shelf, shelf_widths, strict=True):
            for number, (arena, objects) in enumerate(place.arenas):
                floor = next(chars)
                legend[floor] = {"sector": place.sector, "arena": arena}
                left = x + number * ROOM_WIDTH
                tiles = [
                    (left + dx, top + dy) for dy in range(ROOM_HEIGHT) for dx in range(ROOM_WIDTH)
                ]
                for tx, ty in tiles:
                    grid[ty][tx] = floor
                things = list(objects)
                if number == 0:
                    things += list(SPARE_BEDS[: extra_beds.get(place.sector, 1) - 1])
                # Objects away from the row by the door, so the way in stays clear.
                spots = [t for t in tiles if t[1] != inner_y]
                rng.shuffle(spots)
                for (tx, ty), thing in zip(spots, things, strict=False):
                    char = next(chars)
                    legend[char] = {"sector": place.sector, "arena": arena, "object": thing}
                    grid[ty][tx] = char
            grid[door_y][x + 1] = "."  # the door, below (or above) the first arena
            grid[inner_y][x + 1] = next(
                c
                for c, e in legend.items()
                if e.get("sector") == place.sector and "object" not in e
            )
            x += span + 1
    return {
        "format": "smallville-town/1",
        "name": name,
        "world": world,
        "tile_size": 32,
        "rows": ["".join(r) for r in grid],
        "legend": legend,
    }
