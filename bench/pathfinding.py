"""Path query throughput on the Ville: `python -m bench pathfinding` prints one JSON object.

Cold: every query toward a new target with empty caches (one full search each). Warm:
agents walking to a limited set of places, so most queries find their target's field
cached. Address queries: every arena to every arena, as the planner asks them.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from typing import Any

from bench.machine import stamp
from world import paths
from world.models import Location, LocationKind, Town
from world.towns import town_get_or_import

SEED = 20230413
COLD_QUERIES = 2_000
WARM_QUERIES = 50_000
WARM_TARGETS = 200  # places the agents of a tick walk to
BUDGET_S = 15.0  # per phase; the whole run stays well under a minute


def _town_tiles(town: Town) -> list[tuple[int, int]]:
    """Walkable tiles of the town proper (the area of Hobbs Cafe), not the outer margin."""
    anchor = paths.location_anchor(town=town, address="the Ville:Hobbs Cafe:cafe")
    distance = paths.distance_field(town=town, targets=[anchor])
    return [town.tile_xy(i) for i, d in enumerate(distance) if d >= 0]


def _timed(queries: list[tuple[Any, ...]], ask: Any) -> dict[str, Any]:
    """Run queries until done or out of budget; throughput and latency percentiles."""
    latencies: list[float] = []
    started = time.perf_counter()
    for query in queries:
        t0 = time.perf_counter()
        ask(*query)
        latencies.append(time.perf_counter() - t0)
        if t0 - started > BUDGET_S:
            break
    total = time.perf_counter() - started
    micro = sorted(x * 1e6 for x in latencies)
    return {
        "queries": len(latencies),
        "queries_per_s": round(len(latencies) / total),
        "p50_us": round(statistics.median(micro), 1),
        "p95_us": round(micro[int(0.95 * (len(micro) - 1))], 1),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench pathfinding", description=__doc__)
    parser.parse_args(argv)  # no arguments but --help
    town = town_get_or_import()
    rng = random.Random(SEED)
    paths.path_cache_clear()
    t0 = time.perf_counter()
    stats = paths.grid_stats(town=town)  # builds the grid
    grid_build_ms = (time.perf_counter() - t0) * 1e3
    tiles = _town_tiles(town)

    def tile_query(start: tuple[int, int], end: tuple[int, int]) -> None:
        paths.path_between_tiles(town=town, start=start, end=end)

    # Cold: distinct targets, fields evicted each time, so every query runs a full search.
    cold_pairs = [tuple(rng.sample(tiles, 2)) for _ in range(COLD_QUERIES)]

    def cold_query(start: tuple[int, int], end: tuple[int, int]) -> None:
        paths._field.cache_clear()
        tile_query(start, end)

    cold = _timed(cold_pairs, cold_query)

    paths._field.cache_clear()
    targets = rng.sample(tiles, WARM_TARGETS)
    warm_pairs = [(rng.choice(tiles), rng.choice(targets)) for _ in range(WARM_QUERIES)]
    warm = _timed(warm_pairs, tile_query)
    warm["distinct_targets"] = WARM_TARGETS

    arenas = sorted(
        Location.objects.filter(town=town, kind=LocationKind.ARENA).values_list(
            "address", flat=True
        )
    )
    paths._field.cache_clear()
    address_pairs = [(a, b) for a in arenas for b in arenas]

    def address_query(a: str, b: str) -> None:
        paths.path_between_locations(town=town, from_address=a, to_address=b)

    cold_addresses = _timed(address_pairs, address_query)  # first pass fills 63 fields
    warm_addresses = _timed(address_pairs, address_query)
    lengths = [
        len(paths.path_between_locations(town=town, from_address=a, to_address=b)) - 1
        for a, b in address_pairs
    ]

    print(
        json.dumps(
            {
                **stamp(),
                "town": {
                    "name": town.name,
                    "size": [town.width, town.height],
                    "walkable_tiles": stats.walkable,
                    "walkable_areas": stats.areas,
                    "town_proper_tiles": len(tiles),
                    "arenas": len(arenas),
                    "grid_build_ms": round(grid_build_ms, 1),
                },
                "seed": SEED,
                "tile_to_tile": {"cold": cold, "warm": warm},
                "arena_to_arena": {
                    "pairs": len(address_pairs),
                    "first_pass": cold_addresses,
                    "cached": warm_addresses,
                    "mean_steps": round(statistics.fmean(lengths), 1),
                    "max_steps": max(lengths),
                },
            },
            indent=2,
        )
    )
