"""Addresses of the location tree, parsed and formatted without a database."""

from __future__ import annotations

import dataclasses

import pytest

from world.addresses import Address, address_format

# Literal addresses of the shipped Ville, one of each depth.
VILLE_OBJECTS = [
    "the Ville:Hobbs Cafe:cafe:cafe customer seating",
    "the Ville:Hobbs Cafe:cafe:behind the cafe counter",
    "the Ville:Oak Hill College:library:library table",
    "the Ville:Dorm for Oak Hill College:Klaus Mueller's room:bed",
    "the Ville:The Willows Market and Pharmacy:store:pharmacy store shelf",
]
VILLE_PLACES = [
    "the Ville",
    "the Ville:Johnson Park",
    "the Ville:Johnson Park:park",
    "the Ville:Ryan Park's apartment:main room",
    *VILLE_OBJECTS,
]


@pytest.mark.parametrize("text", VILLE_PLACES)
def test_formatting_a_parsed_ville_address_gives_it_back(text: str) -> None:
    assert str(Address.parse(text)) == text


def test_an_object_address_splits_into_its_four_parts() -> None:
    address = Address.parse("the Ville:Hobbs Cafe:cafe:cafe customer seating")
    assert address == Address("the Ville", "Hobbs Cafe", "cafe", "cafe customer seating")
    assert address.depth == 4
    assert address.is_object
    assert address.leaf == "cafe customer seating"
    assert address.arena_address == "the Ville:Hobbs Cafe:cafe"
    assert address.below_world == "Hobbs Cafe:cafe:cafe customer seating"


def test_names_keep_their_spaces_and_apostrophes() -> None:
    address = Address.parse("the Ville:Dorm for Oak Hill College:Klaus Mueller's room:bed")
    assert address.sector == "Dorm for Oak Hill College"
    assert address.arena == "Klaus Mueller's room"
    assert address.object == "bed"


@pytest.mark.parametrize(
    ("text", "depth", "leaf", "arena_address", "below_world"),
    [
        ("the Ville", 1, "the Ville", "the Ville", ""),
        ("the Ville:Johnson Park", 2, "Johnson Park", "the Ville:Johnson Park", "Johnson Park"),
        (
            "the Ville:Johnson Park:park",
            3,
            "park",
            "the Ville:Johnson Park:park",
            "Johnson Park:park",
        ),
    ],
)
def test_short_addresses_leave_the_deeper_parts_empty(
    text: str, depth: int, leaf: str, arena_address: str, below_world: str
) -> None:
    address = Address.parse(text)
    assert address.depth == depth
    assert not address.is_object
    assert address.object == ""
    assert address.leaf == leaf
    assert address.arena_address == arena_address  # above an arena: the place itself
    assert address.below_world == below_world
    assert str(address) == text


def test_the_empty_address_has_depth_zero() -> None:
    address = Address.parse("")
    assert address == Address("")
    assert address.depth == 0
    assert not address.is_object
    assert address.leaf == ""
    assert str(address) == ""


def test_a_fifth_part_stays_in_the_objects_name() -> None:
    address = Address.parse("the Ville:Hobbs Cafe:cafe:piano:keys:middle C")
    assert address.object == "piano:keys:middle C"
    assert address.depth == 4
    assert address.leaf == "piano:keys:middle C"
    assert address.arena_address == "the Ville:Hobbs Cafe:cafe"
    assert str(address) == "the Ville:Hobbs Cafe:cafe:piano:keys:middle C"


def test_address_format_joins_parts_and_stops_at_the_first_empty_one() -> None:
    assert address_format("the Ville", "Hobbs Cafe", "cafe") == "the Ville:Hobbs Cafe:cafe"
    assert address_format("the Ville", "", "cafe", "piano") == "the Ville"
    assert address_format("", "Hobbs Cafe") == ""
    assert address_format() == ""


def test_a_gap_in_the_parts_cuts_the_formatted_address_there() -> None:
    # An arena without its sector cannot be addressed: formatting stops at the gap.
    assert str(Address("the Ville", "", "cafe", "piano")) == "the Ville"
    assert Address("the Ville", "", "cafe").arena_address == "the Ville"


def test_addresses_are_values() -> None:
    first = Address.parse("the Ville:Hobbs Cafe:cafe")
    assert first == Address.parse("the Ville:Hobbs Cafe:cafe")
    assert first != Address.parse("the Ville:Hobbs Cafe:cafe:piano")
    assert {first: "seen"}[Address("the Ville", "Hobbs Cafe", "cafe")] == "seen"
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.arena = "kitchen"  # type: ignore[misc]
