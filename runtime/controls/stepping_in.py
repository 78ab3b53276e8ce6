"""A user steps into the town: takes control of a resident or arrives as a newcomer, then
walks it somewhere (`go`) and talks with whoever is in sight (`say`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.db import transaction

from agents.cognition import StepContext
from agents.cognition.paper import reply_line
from agents.events import (
    agent_acting,
    agent_control,
    agent_created,
    agent_stand_still,
    conversation_held,
)
from agents.models import Conversation
from agents.sleep import is_sleeping
from agents.tasks.importance import importance_rate
from memories.models import MemoryKind
from memories.services import MemoryDraft, memory_event_drafts
from runtime.controls.common import (
    NAME_PATTERN,
    NEWCOMER_DEFAULTS,
    ControlConflict,
    ControlRefused,
    append_now,
    context_now,
    place_words,
    refreshed,
)
from runtime.controls.names import NameRefused, name_normalised, name_skeleton
from runtime.decisions import decision_stand_still
from world.addresses import Address
from world.eventlog import EventDraft
from world.models import Agent, Location, LocationKind, Simulation
from world.paths import (
    NotWalkable,
    UnknownAddress,
    closest_addresses,
    location_anchor,
    path_between_tiles,
    path_to_location,
    reaches_places,
    walkable,
)
from world.selectors import address_at, town_cached


def agent_take_control(
    *, simulation: Simulation, agent: Agent, user_controlled: bool = True
) -> Agent:
    """A user takes control of the agent (it stops and waits for `agent_go`/`agent_say`),
    or gives it back (it resumes its plan at its next step). No change, no event."""
    if agent.user_controlled == user_controlled:
        return agent
    context = context_now(simulation)
    drafts = [
        agent_control(agent=agent.name, user_controlled=user_controlled),
        agent_stand_still(
            agent=agent.name, step=context.step, address=context.arena_at(agent.tile)
        ),
    ]
    append_now(simulation=simulation, drafts=drafts)
    return refreshed(agent)


@dataclass(frozen=True)
class Identity:
    """Who a newcomer is: the fields of the paper's identity description."""

    first_name: str = ""
    last_name: str = ""
    age: int | None = None
    innate: str = ""
    learned: str = ""
    currently: str = ""
    lifestyle: str = ""
    living_area: str = ""
    daily_plan_requirement: str = ""


def _spatial_memory(simulation: Simulation, only_arena: str = "") -> dict[str, object]:
    """{world: {sector: {arena: [objects]}}} for every arena of the town, or one."""
    places: dict[str, dict[str, dict[str, list[str]]]] = {}
    rows = Location.objects.filter(
        town_id=simulation.town_id, kind__in=[LocationKind.ARENA, LocationKind.OBJECT]
    ).values_list("address", flat=True)
    for address in sorted(rows):
        place = Address.parse(address)
        if only_arena and place.arena_address != only_arena:
            continue
        arenas = places.setdefault(place.world, {}).setdefault(place.sector, {})
        objects = arenas.setdefault(place.arena, [])
        if place.is_object:
            objects.append(place.object)
    return dict(places)


def newcomer_create(
    *,
    simulation: Simulation,
    name: str,
    identity: Identity | None = None,
    address: str | None = None,
    tile: tuple[int, int] | None = None,
    knows_town: bool = True,
    memories: Sequence[str] = (),
    user_controlled: bool = True,
) -> Agent:
    """A newcomer at a place (`address`) or a walkable `tile`, user-controlled or living
    its own day (`user_controlled=False`: it plans at its next step).

    It knows every arena of the town, or with `knows_town=False` only the one it starts
    in; `memories` become its first thoughts. Raises ControlRefused for a taken or
    invalid name or tile, UnknownAddress or Unreachable for a bad place.
    """
    name = name_normalised(name)
    drafts = newcomer_drafts(
        simulation=simulation,
        name=name,
        identity=identity,
        address=address,
        tile=tile,
        knows_town=knows_town,
        memories=memories,
        user_controlled=user_controlled,
    )
    append_now(
        simulation=simulation,
        drafts=drafts,
        then=lambda current: decision_stand_still(simulation=current, agent=name),
    )
    return Agent.objects.get(simulation=simulation, name=name)


def newcomer_drafts(
    *,
    simulation: Simulation,
    name: str,
    identity: Identity | None = None,
    address: str | None = None,
    tile: tuple[int, int] | None = None,
    knows_town: bool = True,
    memories: Sequence[str] = (),
    user_controlled: bool = True,
) -> list[EventDraft]:
    """The events of a newcomer's arrival at the simulation's current step (validated as
    `newcomer_create` says); the caller appends them."""
    identity = identity or Identity()
    name = name_normalised(name)
    if not NAME_PATTERN.match(name) or len(name) > 200:
        raise NameRefused(f"{name!r} cannot be a name: it needs a letter, and no / : \\")
    _name_free(simulation, name)
    start = newcomer_start(simulation, address=address, tile=tile)
    if (
        identity.living_area
        and not Location.objects.filter(
            town_id=simulation.town_id, address=identity.living_area
        ).exists()
    ):
        known = Location.objects.filter(town_id=simulation.town_id, kind=LocationKind.ARENA)
        raise UnknownAddress(
            identity.living_area,
            closest_addresses(identity.living_area, known.values_list("address", flat=True)),
        )
    first, _, last = name.partition(" ")
    context = context_now(simulation)
    here = context.arena_at(start)
    fields = {
        **NEWCOMER_DEFAULTS,
        **vars(identity),
        "first_name": identity.first_name or first,
        "last_name": identity.last_name or last,
        "spatial_memory": _spatial_memory(simulation, "" if knows_town else here),
        "seed_statements": list(memories),
        "user_controlled": user_controlled,
    }
    newcomer = Agent(simulation=simulation, name=name, tile_x=start[0], tile_y=start[1], **fields)
    return [
        agent_created(agent=name, identity=fields, tile=start),
        agent_stand_still(agent=name, step=context.step, address=here),
        *memory_event_drafts(
            simulation=simulation,
            drafts=[
                MemoryDraft(
                    agent=name,
                    kind=MemoryKind.THOUGHT,
                    description=statement,
                    importance=importance_rate(
                        simulation=simulation, agent=newcomer, memory=statement
                    ),
                )
                for statement in memories
            ],
        ),
    ]


def newcomer_start(
    simulation: Simulation, *, address: str | None, tile: tuple[int, int] | None
) -> tuple[int, int]:
    """Where a newcomer starts: the place's anchor tile, or `tile` if walkable and not
    walled in. Raises ControlRefused (field `tile`), UnknownAddress or Unreachable."""
    town = town_cached(pk=simulation.town_id)
    if address is not None:
        return location_anchor(town=town, address=address)
    if tile is not None and walkable(town=town, tile=tile):
        if not reaches_places(town=town, tile=tile):
            raise ControlRefused(
                f"tile {tile} is walled in: no place of the town can be reached from it",
                field="tile",
            )
        return tile
    raise ControlRefused(f"tile {tile} is not a walkable tile of the town", field="tile")


def _name_free(simulation: Simulation, name: str) -> None:
    """NameRefused if a resident's name prints as `name` would (case and look-alike
    letters aside: names.name_skeleton)."""
    skeleton = name_skeleton(name)
    for taken in Agent.objects.filter(simulation=simulation).values_list("name", flat=True):
        if name_skeleton(taken) == skeleton:
            same = "" if taken == name else f" as {taken!r} (names ignore case and look-alikes)"
            raise NameRefused(f"{name!r} already lives in this simulation{same}")


def _user_controlled(agent: Agent) -> None:
    if not agent.user_controlled:
        raise ControlConflict(
            f"{agent.name} is not user-controlled; take control of it first (POST control)"
        )


def agent_go(
    *,
    simulation: Simulation,
    agent: Agent,
    address: str | None = None,
    tile: tuple[int, int] | None = None,
    action: str = "",
) -> Agent:
    """Send a user-controlled agent to a place (`address`) or a walkable `tile`; it walks a
    tile a step along the shortest path. `action` is what it will be doing (default:
    walking there). Raises ControlConflict, UnknownAddress (with suggestions), Unreachable
    or ControlRefused (field `tile`)."""
    _user_controlled(agent)
    town = town_cached(pk=simulation.town_id)
    try:
        if tile is not None:
            if not walkable(town=town, tile=tile):
                raise ControlRefused(
                    f"tile {tile} is not a walkable tile of the town", field="tile"
                )
            path = path_between_tiles(town=town, start=agent.tile, end=tile)
            address = address_at(town=town, tile=tile)
        else:
            assert address is not None, "agent_go needs an address or a tile"
            path = path_to_location(town=town, start=agent.tile, address=address)
    except NotWalkable as exc:
        raise ControlRefused(f"{agent.name} stands on a tile it cannot walk from: {exc}") from exc
    place = place_words(address)
    step = Simulation.objects.values_list("step", flat=True).get(pk=simulation.pk)
    draft = agent_acting(
        agent=agent.name,
        action=action or f"walking to the {place}",
        emoji="🚶",
        address=address,
        spo=[agent.name, "goes to", place],
        start_step=step,
        end_step=step + len(path) - 1,
        path=path[1:],
    )
    append_now(simulation=simulation, drafts=[draft])
    return refreshed(agent)


def in_sight(context: StepContext, agent: Agent) -> list[Agent]:
    """The residents `agent` can talk to: present, in its arena and within its vision
    radius (Chebyshev distance), nearest first, then by name."""
    here = context.arena_at(agent.tile)
    if not here:
        return []
    near = [
        (apart, name, other)
        for name, other in context.agents.items()
        if name != agent.name and context.arena_at(other.tile) == here
        if (apart := tiles_apart(agent, other)) <= agent.vision_radius
    ]
    return [other for _, _, other in sorted(near, key=lambda row: row[:2])]


def tiles_apart(a: Agent, b: Agent) -> int:
    """How far apart two residents stand, in tiles (the larger of x and y)."""
    return max(abs(a.tile_x - b.tile_x), abs(a.tile_y - b.tile_y))


def agent_say(
    *, simulation: Simulation, speaker: Agent, listener: Agent, text: str
) -> Conversation:
    """A user-controlled agent says `text` to a resident in sight (within its vision
    radius, in the same arena); the resident answers with one line (a person, another
    user-controlled one, answers with its own `say`), and both remember the exchange as a
    conversation. Raises ControlConflict or ControlRefused."""
    _user_controlled(speaker)
    if speaker.pk == listener.pk:
        raise ControlRefused(f"{speaker.name} cannot talk to itself")
    context = context_now(simulation)
    for who in (speaker, listener):
        if who.name not in context.agents:  # the step's residents: those still in town
            raise ControlRefused(f"{who.name} has left the town")
    speaker, listener = context.agents[speaker.name], context.agents[listener.name]
    here = context.arena_at(speaker.tile)
    if listener.name not in {other.name for other in in_sight(context, speaker)}:
        raise ControlRefused(
            f"{listener.name} is not in sight of {speaker.name}: they must be in the same "
            f"arena within {speaker.vision_radius} tiles"
        )
    if is_sleeping(listener.action):
        raise ControlConflict(f"{listener.name} is asleep")
    lines = [{"speaker": speaker.name, "text": text}]
    record = f'{speaker.name} said to {listener.name}: "{text}"'
    touches: list[EventDraft] = []
    # A person's words are theirs to type: one spoken to answers with its own `say`.
    if not listener.user_controlled:
        reply, touches = reply_line(
            context=context, speaker=listener, listener=speaker, lines=lines
        )
        lines.append({"speaker": listener.name, "text": reply})
        record += f' {listener.name} said: "{reply}"'
    memories = [
        MemoryDraft(
            agent=me.name,
            kind=MemoryKind.CONVERSATION,
            description=record,
            importance=importance_rate(simulation=simulation, agent=me, memory=record),
            subject=me.name,
            predicate="talked with",
            object=partner.name,
        )
        for me, partner in ((speaker, listener), (listener, speaker))
    ]
    drafts = [
        conversation_held(
            agent=speaker.name,
            participants=[speaker.name, listener.name],
            lines=lines,
            summary=record,
            address=here,
        ),
        *touches,
        *memory_event_drafts(simulation=simulation, drafts=memories),
    ]
    with transaction.atomic():  # the newest conversation is ours while the lock is held
        append_now(simulation=simulation, drafts=drafts)
        return Conversation.objects.filter(simulation=simulation).latest("number")
