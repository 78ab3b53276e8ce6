"""The bounds `bench latency` reports: what a scheduler must wait for at best."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from bench.latency import chain_bound, decision_chains, dependency_bound, resident_bound

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
