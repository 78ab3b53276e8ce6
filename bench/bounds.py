"""What a scheduler must wait for at best, from a run's log and ledger (`bench latency`).

Every bound is in calls one after another (times the latency: seconds), from the calls
someone waited on (priority 0), grouped by decision (the ledger's `step` and `decider`):
- `chain_bound`: per step, the longest decision; summed. What the barrier engine waits
  for, costing nothing itself.
- `resident_bound`: the busiest resident's own decisions, one after another: what an
  engine would wait for if no resident ever waited on another.
- `dependency_bound`: through residents within sight of each other (vision, where they
  stood in the log): an oracle that knows where everyone will stand.
- `seen_change_bound`: through residents in sight (the same arena, within vision) whose
  previous step changed what the other sees (moved, began an action, changed an object,
  talked): no engine that writes the barrier's log can wait less, even one that knew
  the future of every step but its contents.
- `rule_bound`: the scheduling rule of the engine that runs residents ahead
  (runtime/engine/ahead/schedule.py) played out on the log, each group's step taking its
  longest decision: what that rule allows, the engine costing nothing.
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Callable
from typing import Any

import numpy as np

from runtime.engine.ahead.schedule import Reach, Resident, groups_ready
from world.models import Town
from world.selectors import arena_addresses

Chains = dict[tuple[int, str], int]  # (step, decider) -> its longest chain of calls


def decision_chains(calls: list[dict[str, Any]]) -> Chains:
    """Per decision (a resident's step: the ledger's `step` and `decider`), the longest
    chain of its calls one after another: those that ran at once (`together`) count once.
    From the ledger's admission and finish times, so the run's own latency shows which
    waited for which."""
    by_decision: dict[tuple[int, str], list[tuple[float, float]]] = defaultdict(list)
    for call in calls:
        if call["finished_at"] is None:
            continue
        who = call.get("decider") or call["agent_name"]
        by_decision[(call["step"], who)].append(
            (call["created_at"].timestamp(), call["finished_at"].timestamp())
        )
    chains: Chains = {}
    for key, spans in by_decision.items():
        spans.sort()
        longest: list[int] = []
        for i, (start, _) in enumerate(spans):
            before = [longest[j] for j in range(i) if spans[j][1] <= start + OVERLAP]
            longest.append(1 + max(before, default=0))
        chains[key] = max(longest)
    return chains


OVERLAP = 0.005  # seconds: a call admitted this soon after another's answer followed it


def chain_bound(chains: Chains) -> int:
    """Per step, the longest chain of one decision (the barrier waits for it); summed."""
    per_step: dict[int, int] = defaultdict(int)
    for (step, _), length in chains.items():
        per_step[step] = max(per_step[step], length)
    return sum(per_step.values())


def resident_bound(chains: Chains) -> int:
    """The most calls one resident's own decisions waited on, one after another."""
    per_resident: dict[str, int] = defaultdict(int)
    for (_, who), length in chains.items():
        per_resident[who] += length
    return max(per_resident.values(), default=0)


def dependency_bound(
    chains: Chains,
    names: list[str],
    tiles: dict[int, list[tuple[str, int, int]]],
    *,
    reach: int,
    steps: int,
) -> int:
    """The oracle's wait: the longest chain of calls through residents that could perceive
    each other. A resident's step starts when its own previous step, and that of every
    resident within `reach` tiles (Chebyshev: vision) of it, are done, and adds its
    decision's chain. What a scheduler that knew where everyone will stand must still wait
    for to write the barrier's log; between the resident bound (nobody waits on anyone)
    and the chain bound (everyone waits on all). `tiles`: per step, the (name, x, y) of
    residents placed or moved then (the state a step decides from is the log up to it)."""

    def waits(step: int, where: np.ndarray) -> np.ndarray:
        return np.abs(where[:, None, :] - where[None, :, :]).max(axis=2) <= reach

    return _wait_bound(chains, names, tiles, waits, steps=steps)


def seen_change_bound(
    chains: Chains,
    names: list[str],
    tiles: dict[int, list[tuple[str, int, int]]],
    changed: dict[int, set[str]],
    town: Town,
    *,
    vision: int,
    steps: int,
) -> int:
    """`dependency_bound` waiting only on residents in the same arena within `vision` whose
    previous step changed what can be seen of them (`changed`: per log step, who moved,
    began an action, changed an object or talked then)."""
    index = {name: i for i, name in enumerate(names)}
    arenas = arena_addresses(town=town)

    def waits(step: int, where: np.ndarray) -> np.ndarray:
        arena = np.array(
            [hash(arenas.get(town.arena_layer[town.tile_index(x, y)], "")) for x, y in where]
        )
        seen = np.abs(where[:, None, :] - where[None, :, :]).max(axis=2) <= vision
        seen &= arena[:, None] == arena[None, :]
        moved = np.zeros(len(names), dtype=bool)
        moved[[index[n] for n in changed.get(step, ()) if n in index]] = True
        together = seen & moved[None, :]
        np.fill_diagonal(together, True)
        return together

    return _wait_bound(chains, names, tiles, waits, steps=steps)


def _wait_bound(
    chains: Chains,
    names: list[str],
    tiles: dict[int, list[tuple[str, int, int]]],
    waits: Callable[[int, np.ndarray], np.ndarray],
    *,
    steps: int,
) -> int:
    """Play the steps out: a resident's step starts when its own previous step and those
    of everyone it `waits` on (a boolean matrix of who waits on whom, from where everyone
    stands) are done, and adds its decision's chain; the longest total."""
    index = {name: i for i, name in enumerate(names)}
    cost = _costs(chains, index)
    where = np.zeros((len(names), 2), dtype=np.int64)
    done = np.zeros(len(names))
    for step in range(steps + 1):
        for name, x, y in tiles.get(step, ()):
            where[index[name]] = (x, y)
        done = np.where(waits(step, where), done[None, :], 0.0).max(axis=1)
        if step in cost:
            done = done + cost[step]
    return int(done.max(initial=0))


def rule_bound(
    chains: Chains,
    names: list[str],
    tiles: dict[int, list[tuple[str, int, int]]],
    reach: Reach,
    *,
    first: int,
    steps: int,
) -> int:
    """The rule played out: groups start as `groups_ready` lets them (residents where the
    log has them at their step), each taking its longest decision's chain; the wall of
    an engine that costs nothing, in calls."""
    where: dict[str, list[tuple[int, int]]] = {name: [] for name in names}
    last: dict[str, tuple[int, int]] = {}
    for step in range(steps + 1):
        for name, x, y in tiles.get(step, ()):
            last[name] = (x, y)
        for name in names:
            where[name].append(last.get(name, (0, 0)))
    residents = {name: Resident(name, first, where[name][first]) for name in names}
    clock, order = 0.0, 0
    running: list[tuple[float, int, list[Resident]]] = []
    while True:
        for r in residents.values():
            if not r.busy:
                r.tile = where[r.name][r.step]
        for group in groups_ready(list(residents.values()), reach=reach, limit=steps):
            length = max(chains.get((group[0].step, r.name), 0) for r in group)
            order += 1
            heapq.heappush(running, (clock + length, order, group))
        if not running:
            return round(clock)
        clock, _, group = heapq.heappop(running)
        finished = [group]
        while running and running[0][0] <= clock:
            finished.append(heapq.heappop(running)[2])
        for group in finished:
            for r in group:
                r.step += 1
                r.busy = False


def _costs(chains: Chains, index: dict[str, int]) -> dict[int, np.ndarray]:
    cost: dict[int, np.ndarray] = {}
    for (step, who), length in chains.items():
        if who in index:
            row = cost.setdefault(step, np.zeros(len(index)))
            row[index[who]] += length
    return cost
