"""What every user control shares: its errors, and appending at the current step.

Every control validates first, then calls the models (outside any transaction), then
appends its events in one `events_append` at the simulation's current step, read under the
simulation's row lock. So a control works while the simulation is paused or running (the
append serialises with the tick commit on that row) and changes nothing when it fails.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from django.core.cache import cache
from django.db import transaction

from agents.cognition import StepContext
from runtime.leases import ahead_lease
from runtime.models import StagedCommit
from world.addresses import Address
from world.eventlog import EventDraft, events_append
from world.models import Agent, Event, Simulation, SimulationStatus
from world.selectors import town_cached

NEWCOMER_DEFAULTS = {
    "vision_radius": 8,
    "attention_bandwidth": 8,
    "retention": 8,
    "recency_decay": 0.995,
    "reflection_threshold": 150,
}
# A resident's name is also its URL key: it has a letter (all digits would be an id) and
# no slash, colon or backslash.
NAME_PATTERN = re.compile(r"^[^/:\\]*[^\W\d_][^/:\\]*$")


class ControlRefused(ValueError):
    """The control does not apply to this request (a bad name, place or listener);
    `field`, when given, is the request's field at fault."""

    field: str | None = None

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        if field is not None:
            self.field = field


class ControlConflict(ControlRefused):
    """The resident's state does not allow the control now (not user-controlled, busy)."""


def append_now(
    *,
    simulation: Simulation,
    drafts: Sequence[EventDraft],
    then: Callable[[Simulation], None] | None = None,
) -> list[Event]:
    """Append at the simulation's current step, read under its row lock: a tick may have
    committed since the caller loaded the simulation. `then` runs under the same lock."""
    with transaction.atomic():
        current = Simulation.objects.select_for_update().get(pk=simulation.pk)
        if _ahead(current):
            raise ControlConflict(
                "residents of this simulation stand ahead of its log (the engine runs them "
                "ahead of each other): pause it, and once they stand at one step the "
                "control applies"
            )
        events = events_append(simulation=current, drafts=drafts)
        if then is not None:
            then(current)
    simulation.step, simulation.last_seq = current.step, current.last_seq
    return events


def _ahead(simulation: Simulation) -> bool:
    """Whether residents stand ahead of the log: staged there, or running ahead of each
    other in a process now (where steps that decided nothing are recorded only by the
    next commit)."""
    if StagedCommit.objects.filter(simulation=simulation).exists():
        return True
    if simulation.status != SimulationStatus.RUNNING:
        return False
    try:
        return cache.get(ahead_lease(simulation.pk)) is not None
    except Exception:
        return False  # no cache: a run ahead records its residents' steps within a second


def context_now(simulation: Simulation) -> StepContext:
    """What cognition would read at the simulation's current step."""
    simulation.refresh_from_db()
    return StepContext(
        simulation=simulation,
        town=town_cached(pk=simulation.town_id),
        step=simulation.step,
        agents={a.name: a for a in Agent.present.filter(simulation=simulation)},
    )


def refreshed(agent: Agent) -> Agent:
    return Agent.objects.get(pk=agent.pk)


def place_words(address: str) -> str:
    """'Brindle Green:Kettle Cafe:cafe' -> 'cafe of Kettle Cafe'; a sector stays its name."""
    place = Address.parse(address)
    if place.depth <= 2:
        return place.leaf
    return f"{place.leaf} of {place.sector}"
