"""Bench towns: more residents for a simulation, as copies of its own or made up and
spread over its whole town.

`copies_add` stands "<name> 2" .. "<name> k" on the originals' tiles. `residents_spread`
makes up residents with a home (an arena with a bed) and a workplace (an arena of a
sector nobody lives in), both drawn from the town's place tree, round robin over each
shuffled by the seed; their identity names both as the base residents' texts do, so the
offline planner sends them there. Both add the residents through the event log.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from agents.bases.format import Resident
from agents.events import AGENT_CREATED, agent_created
from agents.persona import IDENTITY_FIELDS
from agents.services import residents_seed_memories
from world.addresses import Address
from world.eventlog import EventDraft, events_append
from world.models import Location, LocationKind, Simulation, Town
from world.paths import Tile, distance_field, location_anchor

TownKind = Literal["spread", "copies"]
TOWN_KINDS: tuple[TownKind, ...] = ("spread", "copies")

# An object a resident sleeps on makes its arena a home; matched as whole words.
BED_WORDS = ("bed", "beds", "bunk", "cot", "futon", "hammock")

# Made-up names, none a resident's of the shipped bases nor a word of a place.
FIRST_NAMES = (
    "Alma", "Anton", "Beatriz", "Bruno", "Cecile", "Cyril", "Dagny", "Dario", "Edith",
    "Emil", "Farid", "Fiona", "Greta", "Gustav", "Hana", "Hugo", "Ines", "Ivo", "Jolene",
    "Jonas", "Kasimir", "Kira", "Leona", "Lionel", "Matteo", "Mira", "Nadia", "Nils",
    "Olga", "Pablo", "Quentin", "Rosa", "Soren", "Thea", "Ugo", "Vera", "Walter", "Xenia",
    "Yusuf", "Zora",
)  # fmt: skip
LAST_NAMES = (
    "Abbott", "Achterberg", "Bergstrom", "Bianchi", "Castell", "Costa", "Delacroix",
    "Dunmore", "Ekwueme", "Engel", "Falk", "Fournier", "Gallo", "Haddad", "Ivanova",
    "Jovic", "Kowalski", "Lindqvist", "Mbeki", "Novak", "Okafor", "Pereira", "Quist",
    "Renner", "Sandoval", "Tanaka", "Ueda", "Varga", "Weller", "Xu", "Yilmaz", "Zeller",
)  # fmt: skip
TRAITS = (
    "curious", "patient", "cheerful", "reserved", "diligent", "witty", "kind",
    "practical", "restless", "thoughtful", "generous", "stubborn",
)  # fmt: skip


def copies_add(simulation: Simulation, size: int) -> Simulation:
    """The simulation's residents and copies of them (at their tiles, named "<name> 2"
    .. "<name> k"), `size` in all, added through the event log."""
    originals = list(simulation.agents.order_by("name"))
    copies = []
    for n in range(2, size // len(originals) + 1):
        for agent in originals:
            payload: dict[str, Any] = {k: getattr(agent, k) for k in IDENTITY_FIELDS}
            payload["tile"] = [agent.tile_x, agent.tile_y]
            copies.append(
                EventDraft(kind=AGENT_CREATED, agent=f"{agent.name} {n}", payload=payload)
            )
    events_append(simulation=simulation, drafts=copies, step=0)
    assert simulation.agents.count() == size
    return simulation


def residents_add(simulation: Simulation, size: int, *, town: TownKind) -> Simulation:
    """`size` residents in all, the added ones spread over the town or copies."""
    if town == "spread":
        return residents_spread(simulation, size)
    return copies_add(simulation, size)


@dataclass(frozen=True)
class TownPlaces:
    """What a town offers residents made up for it: arena addresses of homes and of
    workplaces, each arena's objects, and the tiles a resident may start on at home."""

    world: str
    homes: tuple[str, ...]
    workplaces: tuple[str, ...]
    objects: dict[str, list[str]]  # arena address -> its objects' names
    starts: dict[str, tuple[Tile, ...]]  # home -> walkable tiles, off its objects if it can

    def sector_arenas(self, sector: str) -> list[str]:
        return [a for a in self.objects if Address.parse(a).sector == sector]


def _sleeps_on(name: str) -> bool:
    return any(word in BED_WORDS for word in re.findall(r"\w+", name.lower()))


def town_places(*, town: Town) -> TownPlaces:
    """Homes: arenas with a bed, whose start tiles reach the rest of the town. Workplaces:
    the arenas of sectors without a home."""
    rows = Location.objects.filter(town=town, kind__in=[LocationKind.ARENA, LocationKind.OBJECT])
    arena_tiles: dict[str, list[int]] = {}
    objects: dict[str, list[str]] = defaultdict(list)
    object_tiles: dict[str, set[int]] = defaultdict(set)
    for kind, address, tiles in rows.order_by("address").values_list("kind", "address", "tiles"):
        place = Address.parse(address)
        if kind == LocationKind.ARENA:
            arena_tiles[address] = tiles
            objects.setdefault(address, [])  # an arena without objects is still one
        else:
            objects[place.arena_address].append(place.object)
            object_tiles[place.arena_address].update(tiles)
    starts: dict[str, tuple[Tile, ...]] = {}
    for arena, names in objects.items():
        if any(_sleeps_on(name) for name in names):
            found = _start_tiles(town, arena, arena_tiles.get(arena, []), object_tiles[arena])
            if found:
                starts[arena] = found
    residential = {Address.parse(home).sector for home in starts}
    workplaces = tuple(a for a in arena_tiles if Address.parse(a).sector not in residential)
    if not starts or not workplaces:
        raise ValueError(f"{town.name} has no homes (arenas with a bed) or no workplaces")
    return TownPlaces(town.world_name, tuple(starts), workplaces, dict(objects), starts)


def _start_tiles(town: Town, arena: str, tiles: list[int], taken: set[int]) -> tuple[Tile, ...]:
    """The arena's tiles a walk from its anchor reaches (none outside its walls), those
    not under an object first choice."""
    try:
        anchor = location_anchor(town=town, address=arena)
    except ValueError:  # no walkable tile
        return ()
    distance = distance_field(town=town, targets=[anchor])
    reached = [t for t in tiles if distance[t] >= 0]
    free = [t for t in reached if t not in taken] or reached
    return tuple(town.tile_xy(t) for t in sorted(free))


@dataclass(frozen=True)
class Newcomer:
    """A made-up resident: its name, home and workplace (arena addresses), start tile and
    identity (the IDENTITY_FIELDS of agent.created)."""

    name: str
    home: str
    workplace: str
    tile: Tile
    identity: dict[str, Any]


def names_drawn(count: int, *, seed: int, taken: Iterable[str] = ()) -> list[str]:
    """`count` first-last names, none of `taken`, in an order the seed shuffles."""
    names = [f"{first} {last}" for first in FIRST_NAMES for last in LAST_NAMES]
    random.Random(seed).shuffle(names)
    used = set(taken)
    free = [name for name in names if name not in used]
    if count > len(free):
        raise ValueError(f"only {len(free)} made-up names for {count} residents")
    return free[:count]


def newcomers_drawn(
    *, town: Town, count: int, seed: int, taken: Iterable[str] = ()
) -> list[Newcomer]:
    """`count` residents for `town`, homes and workplaces round robin over the town's,
    each list shuffled by the seed; housemates start on different tiles while there are
    enough."""
    places = town_places(town=town)
    rng = random.Random(seed)
    homes, workplaces = list(places.homes), list(places.workplaces)
    rng.shuffle(homes)
    rng.shuffle(workplaces)
    starts = {home: rng.sample(tiles, len(tiles)) for home, tiles in places.starts.items()}
    housed: dict[str, int] = defaultdict(int)
    made = []
    for i, name in enumerate(names_drawn(count, seed=seed, taken=taken)):
        home, workplace = homes[i % len(homes)], workplaces[i % len(workplaces)]
        tile = starts[home][housed[home] % len(starts[home])]
        housed[home] += 1
        identity = _identity(name, home, workplace, places, rng)
        made.append(Newcomer(name, home, workplace, tile, identity))
    return made


def _spatial_memory(home: str, workplace: str, places: TownPlaces) -> dict[str, Any]:
    """Home and the shared rooms of its sector, the workplace (alone of its sector, so a
    plan to work there goes to it), and every other place nobody lives in."""
    at_home = Address.parse(home)
    at_work = Address.parse(workplace)
    known: dict[str, dict[str, list[str]]] = defaultdict(dict)
    rooms = [a for a in places.sector_arenas(at_home.sector) if a not in places.homes]
    for arena in (home, *rooms, workplace):
        place = Address.parse(arena)
        known[place.sector][place.arena] = places.objects[arena]
    for arena in places.workplaces:
        place = Address.parse(arena)
        if place.sector != at_work.sector:
            known[place.sector][place.arena] = places.objects[arena]
    return {places.world: dict(known)}


def _clock(hour: int) -> str:
    return f"{hour % 12 or 12}{'am' if hour < 12 else 'pm'}"


def _identity(
    name: str, home: str, workplace: str, places: TownPlaces, rng: random.Random
) -> dict[str, Any]:
    """The identity of a made-up resident. The requirement names the workplace's sector
    and arena in a clause of work: the offline routine works there."""
    first, last = name.split(" ", 1)
    work, house = Address.parse(workplace), Address.parse(home)
    start, wake = rng.choice((8, 9)), rng.choice((6, 7))
    bed, dinner = rng.choice((22, 23)), rng.choice((18, 19))
    defaults = Resident.model_fields
    return {
        "first_name": first,
        "last_name": last,
        "age": rng.randint(20, 68),
        "innate": ", ".join(rng.sample(TRAITS, 3)),
        "learned": f"{name} works at {work.sector}, in the {work.arena}, and lives at "
        f"{house.sector} ({house.arena}).",
        "currently": f"{name} is getting to know the neighbours at {house.sector}.",
        "lifestyle": f"{name} goes to bed around {_clock(bed)}, awakes up around "
        f"{_clock(wake)}, eats dinner around {_clock(dinner)}.",
        "living_area": home,
        "daily_plan_requirement": f"{name} works at {work.sector} from {_clock(start)} to "
        f"{_clock(start + 8)}, in the {work.arena}, and goes home afterwards.",
        "vision_radius": defaults["vision_radius"].default,
        "attention_bandwidth": defaults["attention_bandwidth"].default,
        "retention": defaults["retention"].default,
        "recency_decay": defaults["recency_decay"].default,
        "reflection_threshold": defaults["reflection_threshold"].default,
        "spatial_memory": _spatial_memory(home, workplace, places),
        "seed_statements": [
            f"{name} works in the {work.arena} of {work.sector}",
            f"{name} lives at {house.sector} ({house.arena})",
        ],
        "user_controlled": False,
    }


def residents_spread(simulation: Simulation, size: int, *, seed: int = 0) -> Simulation:
    """Made-up residents (`newcomers_drawn`) until the simulation has `size`, added
    through the event log at step 0, their seed statements rated as a base's are."""
    taken = set(simulation.agents.values_list("name", flat=True))
    if size < len(taken):
        raise ValueError(f"the simulation has {len(taken)} residents already, above {size}")
    made = newcomers_drawn(town=simulation.town, count=size - len(taken), seed=seed, taken=taken)
    drafts = [agent_created(agent=n.name, identity=n.identity, tile=n.tile) for n in made]
    events_append(simulation=simulation, drafts=drafts, step=0)
    residents_seed_memories(simulation=simulation)
    assert simulation.agents.count() == size
    return simulation
