"""A made-up harbour town for tests of playing in it: a wide net loft and a chandlery joined
by a corridor, three residents (two at the loft's two ends, out of each other's sight)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from rest_framework.test import APIClient

from agents.bases.services import base_create
from agents.services import simulation_create_from_base
from world.models import Simulation
from world.townbuild import town_create

WORLD = "Saltgrass Quay"
NET_LOFT = f"{WORLD}:Gull net loft:loft"
CHANDLERY = f"{WORLD}:Pell chandlery:counter"
# Two rooms joined by a corridor (row 4); the loft is wide, so some of it is out of sight.
GRID: dict[str, Any] = {
    "format": "smallville-town/1",
    "name": "saltgrass_quay",
    "world": WORLD,
    "tile_size": 32,
    "rows": [
        "##########################",
        "#nnnnnnnnnnnnnnnnnnnnnnnn#",
        "#nnnnnnnnnnnnnnnnnnnnnnnn#",
        "#nnnnnnnnnnnnnnnnnnnnnnnn#",
        "###.######################",
        "#cccccc###################",
        "#cccccc###################",
        "##########################",
    ],
    "legend": {
        "#": {"wall": True},
        ".": {},
        "n": {"sector": "Gull net loft", "arena": "loft"},
        "c": {"sector": "Pell chandlery", "arena": "counter"},
    },
}
MENDER, CHANDLER, FAR = "Ysolde Carrack", "Bram Tiller", "Oona Fathom"


def _resident(name: str, home: str, trade: str, tile: tuple[int, int]) -> dict[str, Any]:
    return {
        "name": name,
        "innate": "patient",
        "learned": f"{name} {trade}.",
        "living_area": home,
        "start": {"tile": list(tile)},
    }


def quay_simulation(owner: User, cognition: str = "minimal") -> Simulation:
    town = town_create(owner=owner, data=GRID)
    base = base_create(
        owner=owner,
        data={
            "name": "quay folk",
            "town": town.name,
            "start_time": "2031-04-14T09:00:00+00:00",
            "sec_per_step": 10,
            # The mender and the far one at the loft's two ends.
            "residents": [
                _resident(MENDER, NET_LOFT, "mends herring nets", (3, 2)),
                _resident(CHANDLER, CHANDLERY, "sells rope and lamp oil", (2, 5)),
                _resident(FAR, NET_LOFT, "tars the hulls", (23, 2)),
            ],
        },
    )
    return simulation_create_from_base(
        owner=owner, base=base.pk, seed=11, config={"cognition": cognition}
    )


def play_url(simulation: Simulation, rest: str = "") -> str:
    return f"/api/simulations/{simulation.pk}/{rest}"


def share(api: APIClient, simulation: Simulation, **body: Any) -> Any:
    """The owner's `PUT share/`."""
    return api.put(play_url(simulation, "share/"), body, format="json")


def join(api: APIClient, simulation: Simulation, **body: Any) -> Any:
    """`POST players/` as a newcomer, by default a ferry pilot on the loft."""
    body = {"name": "Wren Holloway", "about": "a ferry pilot passing through", **body}
    body.setdefault("tile", [5, 2])
    return api.post(play_url(simulation, "players/"), body, format="json")
