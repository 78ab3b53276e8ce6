"""The bounds `bench latency` reports: what a scheduler must wait for at best."""

from __future__ import annotations

from bench.latency import chain_bound, dependency_bound, resident_bound


def calls(*made: tuple[int, str]) -> list[dict[str, object]]:
    return [{"step": step, "agent_name": name} for step, name in made]


def test_residents_out_of_sight_of_each_other_never_wait_for_each_other() -> None:
    made = calls((0, "a"), (0, "a"), (0, "a"), (1, "b"), (1, "b"), (2, "a"))
    tiles = {0: [("a", 0, 0), ("b", 50, 0)]}
    assert dependency_bound(made, ["a", "b"], tiles, reach=8, steps=3) == 4
    assert resident_bound(made) == 4
    assert chain_bound(made) == 6  # the barrier waits for a at 0, b at 1, a at 2


def test_residents_within_sight_wait_as_at_a_barrier() -> None:
    made = calls((0, "a"), (0, "a"), (0, "a"), (1, "b"), (1, "b"), (2, "a"))
    tiles = {0: [("a", 0, 0), ("b", 8, 0)]}
    assert dependency_bound(made, ["a", "b"], tiles, reach=8, steps=3) == 6


def test_a_wait_is_carried_by_whoever_was_in_sight_even_after_they_part() -> None:
    # b stood next to a while a made 3 calls, then walked away: its next call still
    # comes after a's three (its state follows a step that saw a's).
    made = calls((0, "a"), (0, "a"), (0, "a"), (3, "b"))
    tiles = {0: [("a", 0, 0), ("b", 1, 0), ("c", 90, 0)], 2: [("b", 40, 0)]}
    bound = dependency_bound(made, ["a", "b", "c"], tiles, reach=8, steps=4)
    assert bound == 4
    # and nobody who never came within sight of either waits on them
    far = calls((0, "a"), (0, "a"), (0, "a"), (3, "c"))
    assert dependency_bound(far, ["a", "b", "c"], tiles, reach=8, steps=4) == 3
