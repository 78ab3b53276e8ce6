"""A user changes the world: a game object's state, set in words."""

from __future__ import annotations

from agents.events import IDLE, is_idle, object_state
from runtime.controls.common import append_now
from world.eventlog import EventDraft
from world.models import Event, Location, LocationKind, Simulation
from world.paths import UnknownAddress, closest_addresses


def object_addresses(*, simulation: Simulation) -> list[str]:
    return list(
        Location.objects.filter(town_id=simulation.town_id, kind=LocationKind.OBJECT)
        .order_by("address")
        .values_list("address", flat=True)
    )


def object_state_set(*, simulation: Simulation, address: str, state: str) -> Event:
    """Set a game object's state in words ("burning"); "idle" clears it. Residents who
    perceive the object react at their next steps. Raises UnknownAddress (with the
    closest object addresses) when no object of the town has this address."""
    draft = object_state_draft(simulation=simulation, address=address, state=state)
    return append_now(simulation=simulation, drafts=[draft])[0]


def object_state_draft(*, simulation: Simulation, address: str, state: str) -> EventDraft:
    """The event of `object_state_set`, validated; the caller appends it."""
    known = object_addresses(simulation=simulation)
    if address not in known:
        raise UnknownAddress(address, closest_addresses(address, known))
    state = state.strip()
    return object_state(address=address, state=IDLE if is_idle(state) else state)
