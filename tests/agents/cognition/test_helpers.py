"""The paper cognition's pure rules: sleep words, single occupancy, addresses, the places a
resident knows, who is free to talk, the next action. No database."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

import pytest

from agents.cognition.blocks import Block
from agents.cognition.perception import is_free
from agents.cognition.places import KnownPlaces, sector_arena, single_occupancy
from agents.cognition.planning import NextAction
from agents.offline.places import places_of
from agents.sleep import is_bedtime, is_sleeping
from world.models import Agent, Town

MORNING = datetime(2023, 2, 13, 7, 0, tzinfo=UTC)
SPATIAL = {
    "the Ville": {
        "Hobbs Cafe": {"cafe": ["refrigerator", "behind the cafe counter"]},
        "Isabella Rodriguez's apartment": {"main room": ["bed", "desk"], "bathroom": ["shower"]},
        "Johnson Park": {},
    }
}


def _isabella(**fields: object) -> Agent:
    values: dict[str, object] = {
        "name": "Isabella Rodriguez",
        "spatial_memory": SPATIAL,
        "living_area": "the Ville:Isabella Rodriguez's apartment:main room",
    }
    values.update(fields)
    return Agent(**values)


def _places(**fields: object) -> KnownPlaces:
    return KnownPlaces(_isabella(**fields), Town(world_name="the Ville"))


@pytest.mark.parametrize(
    "text", ["sleeping", "going to bed and sleeping", "Sleep", "sleeping in on Sunday"]
)
def test_sleep_is_sleeping(text: str) -> None:
    assert is_sleeping(text)
    assert is_bedtime(text)


@pytest.mark.parametrize("text", ["making the bed", "working at the desk", "waking up", ""])
def test_other_actions_are_not_sleep(text: str) -> None:
    assert not is_sleeping(text)


def test_going_to_bed_is_bedtime_but_not_yet_sleep() -> None:
    assert is_bedtime("going to bed") and not is_sleeping("going to bed")


def test_a_sleep_block_is_spent_sleeping() -> None:
    block = Block("going to bed and sleeping", MORNING, 90, "Isabella Rodriguez's apartment", "")
    assert block.sleeping
    assert block.end == datetime(2023, 2, 13, 8, 30, tzinfo=UTC)
    assert not Block("working at Hobbs Cafe", MORNING, 60, "Hobbs Cafe", "cafe").sleeping


@pytest.mark.parametrize(
    "address",
    [
        "the Ville:Isabella Rodriguez's apartment:main room:bed",
        "the Ville:Isabella Rodriguez's apartment:bathroom:Shower",
        "the Ville:Dorm for Oak Hill College:Man's Bathroom:toilet",
        "bed",
    ],
)
def test_beds_showers_and_toilets_take_one_resident_at_a_time(address: str) -> None:
    assert single_occupancy(address)


@pytest.mark.parametrize(
    "address",
    [
        "the Ville:Isabella Rodriguez's apartment:main room:desk",
        "the Ville:Moreno family's house:Tom and Jane Moreno's bedroom:desk",  # not the bed
        "the Ville:Hobbs Cafe:cafe",
        "the Ville:Hobbs Cafe:cafe:cafe customer seating",
        "",
    ],
)
def test_other_places_are_shared(address: str) -> None:
    assert not single_occupancy(address)


@pytest.mark.parametrize(
    ("address", "expected"),
    [
        ("the Ville:Hobbs Cafe:cafe:refrigerator", ("Hobbs Cafe", "cafe")),
        ("the Ville:Hobbs Cafe:cafe", ("Hobbs Cafe", "cafe")),
        ("the Ville:Hobbs Cafe", ("Hobbs Cafe", "")),
        ("the Ville", ("", "")),
        ("", ("", "")),
    ],
)
def test_sector_and_arena_of_an_address_with_fewer_parts(
    address: str, expected: tuple[str, str]
) -> None:
    assert sector_arena(address) == expected


def test_the_places_text_is_what_the_offline_rules_read_back() -> None:
    places = _places()
    assert places_of(places.text()) == {
        "Hobbs Cafe": ["cafe"],
        "Isabella Rodriguez's apartment": ["main room", "bathroom"],
        "Johnson Park": [],
    }


def test_a_named_place_is_mapped_to_the_nearest_known_one() -> None:
    places = _places()
    assert places.nearest_arena("Hobbs Cafe", "cafe") == ("Hobbs Cafe", "cafe")
    assert places.nearest_arena("Hobbs Café", "the cafe") == ("Hobbs Cafe", "cafe")
    assert places.nearest_arena("Isabella Rodriguez's apartment", "bath") == (
        "Isabella Rodriguez's apartment",
        "bathroom",
    )


def test_a_sector_without_known_arenas_sends_the_resident_home() -> None:
    home = ("Isabella Rodriguez's apartment", "main room")
    assert _places().nearest_arena("Johnson Park", "park") == home
    assert _places(spatial_memory={}).nearest_arena("Hobbs Cafe", "cafe") == home


def test_addresses_are_in_the_residents_world() -> None:
    places = _places()
    assert places.address("Hobbs Cafe", "cafe") == "the Ville:Hobbs Cafe:cafe"
    assert places.address("Hobbs Cafe", "cafe", "refrigerator") == (
        "the Ville:Hobbs Cafe:cafe:refrigerator"
    )
    assert places.objects_in("Isabella Rodriguez's apartment", "main room") == ["bed", "desk"]
    assert places.objects_in("Johnson Park", "park") == []
    # An address is taken as it is (no lookup); only a bare name is an object to find.
    assert places.resolve("Hobbs Cafe", "cafe", "the Ville:Johnson Park:park") == (
        "the Ville:Johnson Park:park"
    )


def test_a_resident_is_free_when_awake_and_not_talking() -> None:
    assert is_free(_isabella(action="brewing coffee"), step=10)
    assert not is_free(_isabella(action="sleeping"), step=10)
    chatting = _isabella(action="chatting with Klaus", chatting_with="Klaus", busy_until_step=12)
    assert not is_free(chatting, step=10)
    assert is_free(chatting, step=12)  # the conversation is over


def test_a_next_action_is_one_value_that_cannot_change_under_its_reader() -> None:
    action = NextAction(
        description="brewing coffee",
        end=MORNING,
        address="the Ville:Hobbs Cafe:cafe:behind the cafe counter",
        emoji="☕",
        spo=["Isabella Rodriguez", "brews", "coffee"],
        object_state="brewing coffee",
    )
    assert [f.name for f in dataclasses.fields(action)] == [
        "description",
        "end",
        "address",
        "emoji",
        "spo",
        "object_state",
    ]
    with pytest.raises(dataclasses.FrozenInstanceError):
        action.address = "the Ville:Hobbs Cafe:cafe"  # type: ignore[misc]
