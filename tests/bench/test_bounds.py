"""The bounds `bench latency` reports: what a scheduler must wait for at best."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from bench.bounds import (
    chain_bound,
    decision_chains,
    dependency_bound,
    resident_bound,
    rule_bound,
    seen_change_bound,
)
from runtime.engine.ahead.schedule import reach_of
from world.models import Town
from world.selectors import arena_addresses

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def call(step: int, decider: str, start: float, end: float, speaker: str = "") -> dict[str, Any]:
    return {
        "step": step,
        "decider": decider,
        "agent_name": speaker or decider,
        "created_at": T0 + timedelta(seconds=start),
        "finished_at": T0 + timedelta(seconds=end),
    }


def test_a_decisions_chain_counts_calls_made_at_once_once() -> None:
    # relationship, then react, then two answers at once (summary and takeaways), one of
    # them the partner's: a chain of 3 in a's decision.
    made = [
        call(4, "a", 0, 1),
        call(4, "a", 1, 2),
        call(4, "a", 2, 3),
        call(4, "a", 2, 3, speaker="b"),
    ]
    assert decision_chains(made) == {(4, "a"): 3}


def chains(*made: tuple[int, str, int]) -> dict[tuple[int, str], int]:
    return {(step, who): length for step, who, length in made}


def test_residents_out_of_sight_of_each_other_never_wait_for_each_other() -> None:
    made = chains((0, "a", 3), (1, "b", 2), (2, "a", 1))
    tiles = {0: [("a", 0, 0), ("b", 50, 0)]}
    assert dependency_bound(made, ["a", "b"], tiles, reach=8, steps=3) == 4
    assert resident_bound(made) == 4
    assert chain_bound(made) == 6  # the barrier waits for a at 0, b at 1, a at 2


def test_residents_within_sight_wait_as_at_a_barrier() -> None:
    made = chains((0, "a", 3), (1, "b", 2), (2, "a", 1))
    tiles = {0: [("a", 0, 0), ("b", 8, 0)]}
    assert dependency_bound(made, ["a", "b"], tiles, reach=8, steps=3) == 6


def test_a_wait_is_carried_by_whoever_was_in_sight_even_after_they_part() -> None:
    # b stood next to a while a made 3 calls, then walked away: its next call still
    # comes after a's three (its state follows a step that saw a's).
    made = chains((0, "a", 3), (3, "b", 1))
    tiles = {0: [("a", 0, 0), ("b", 1, 0), ("c", 90, 0)], 2: [("b", 40, 0)]}
    assert dependency_bound(made, ["a", "b", "c"], tiles, reach=8, steps=4) == 4
    # and nobody who never came within sight of either waits on them
    far = chains((0, "a", 3), (3, "c", 1))
    assert dependency_bound(far, ["a", "b", "c"], tiles, reach=8, steps=4) == 3


@pytest.mark.django_db
def test_the_rule_lets_residents_far_apart_wait_only_for_themselves(ville: Town) -> None:
    """Two residents far apart, each with its own long decisions at different steps:
    under the rule the engine waits for neither's calls twice; side by side, each
    waits for the other, as at a barrier."""
    reach = reach_of(ville, vision=8)
    made = chains((0, "a", 3), (1, "b", 2), (2, "a", 1))
    far = {0: [("a", 0, 0), ("b", 120, 0)]}
    assert rule_bound(made, ["a", "b"], far, reach, first=0, steps=3) <= 4
    close = {0: [("a", 0, 0), ("b", 3, 0)]}
    assert rule_bound(made, ["a", "b"], close, reach, first=0, steps=3) == 6


@pytest.mark.django_db
def test_a_resident_in_sight_is_waited_for_only_when_its_step_changed_what_is_seen(
    ville: Town,
) -> None:
    made = chains((0, "a", 3), (1, "b", 2))
    # Two residents side by side in one arena of the Ville.
    (ax, ay), (bx, by) = side_by_side(ville)
    tiles = {0: [("a", ax, ay), ("b", bx, by)]}
    quiet: dict[int, set[str]] = {}
    assert seen_change_bound(made, ["a", "b"], tiles, quiet, ville, vision=8, steps=2) == 3
    moved = {1: {"a"}}  # a's step 0 moved it: b's step 1 waits for it
    assert seen_change_bound(made, ["a", "b"], tiles, moved, ville, vision=8, steps=2) == 5


def side_by_side(town: Town) -> tuple[tuple[int, int], tuple[int, int]]:
    """Two neighbouring tiles of one arena."""
    arenas = arena_addresses(town=town)
    for index, block in enumerate(town.arena_layer):
        x, y = town.tile_xy(index)
        if arenas.get(block) and town.arena_layer[town.tile_index(x + 1, y)] == block:
            return (x, y), (x + 1, y)
    raise AssertionError("the town has no arena two tiles wide")
