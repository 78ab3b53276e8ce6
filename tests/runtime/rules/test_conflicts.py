"""A single-occupancy object takes one resident at a time: a resident claims it by giving
it its action's state on arrival, and the commit rule `resolve_occupancy` undoes a claim
on an object another resident holds, or that another claimed first in the same step."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from agents.events import agent_moved, object_state
from runtime.commit_context import CommitContext
from runtime.rules.conflicts import resolve_occupancy
from tests.factories import three_residents
from world.eventlog import EventDraft, events_append
from world.models import Simulation

BED = "the Ville:Dorm for Oak Hill College:Klaus Mueller's room:bed"
SHELF = "the Ville:Dorm for Oak Hill College:Klaus Mueller's room:bookshelf"


def claim(name: str, address: str, tile: tuple[int, int]) -> list[EventDraft]:
    return [
        agent_moved(agent=name, tile=tile),
        object_state(address=address, state="in use", agent=name),
    ]


def kept_by(simulation: Simulation, drafts: list[EventDraft]) -> dict[str, set[str]]:
    kept = resolve_occupancy(CommitContext(simulation, simulation.step), drafts)
    found: dict[str, set[str]] = {}
    for draft in kept:
        found.setdefault(draft.agent, set()).add(draft.kind)
    return found


@pytest.mark.django_db
def test_two_claims_of_one_bed_in_a_step_go_to_the_first_by_name(user: User) -> None:
    simulation = three_residents(user, 1)
    drafts = claim("Isabella Rodriguez", BED, (1, 1)) + claim("Klaus Mueller", BED, (2, 2))
    assert kept_by(simulation, drafts) == {"Isabella Rodriguez": {"agent.moved", "object.state"}}


@pytest.mark.django_db
def test_a_claim_on_a_bed_another_resident_holds_is_undone_but_not_its_holders(
    user: User,
) -> None:
    simulation = three_residents(user, 1)
    events_append(
        simulation=simulation,
        drafts=[object_state(address=BED, state="sleeping", agent="Maria Lopez")],
    )
    assert kept_by(simulation, claim("Klaus Mueller", BED, (2, 2))) == {}
    # The holder's own claim (a new state of its action) stands.
    assert kept_by(simulation, claim("Maria Lopez", BED, (3, 3))) == {
        "Maria Lopez": {"agent.moved", "object.state"}
    }


@pytest.mark.django_db
def test_a_state_a_user_set_or_an_object_many_share_is_not_held(user: User) -> None:
    simulation = three_residents(user, 1)
    events_append(
        simulation=simulation,
        drafts=[
            object_state(address=BED, state="covered in books"),  # a user's, no resident's
            object_state(address=SHELF, state="being read", agent="Maria Lopez"),
        ],
    )
    drafts = claim("Klaus Mueller", BED, (2, 2)) + claim("Isabella Rodriguez", SHELF, (1, 1))
    assert kept_by(simulation, drafts) == {
        "Klaus Mueller": {"agent.moved", "object.state"},
        "Isabella Rodriguez": {"agent.moved", "object.state"},
    }
