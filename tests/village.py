"""A made-up village for tests of a small town: four places on an 18x10 grid (a forge, an
apothecary with a long name, a cottage and a green), three residents, and plans and moves
written to its log by hand (so no model and no run)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any, cast

from django.contrib.auth.models import User

from agents.bases.services import base_create
from agents.events import agent_moved, plan_made, plan_revised
from agents.payloads import PlanItemPayload
from agents.services import simulation_create_from_base
from world.eventlog import EventDraft, events_append_steps
from world.events import simulation_stepped
from world.models import Simulation
from world.townbuild import town_create

WORLD = "Wren Hollow"
FORGE = f"{WORLD}:Bramble forge:smithy"
APOTHECARY = f"{WORLD}:Old Tansy Meadowsweet apothecary:shop"
COTTAGE = f"{WORLD}:Pike cottage:kitchen"
GREEN = f"{WORLD}:Wren green:lawn"
GRID: dict[str, Any] = {
    "format": "smallville-town/1",
    "name": "wren_hollow",
    "world": WORLD,
    "tile_size": 32,
    "rows": [
        "##################",
        "#fffff#aaaaaaaaaa#",
        "#fffAf#aaaaaaaaaa#",
        "#fffff#aaaaMaaaaa#",
        "###.#####.########",
        "#................#",
        "#.kkkk#.ggggggg..#",
        "#.kkBk#.gggg@gg..#",
        "#.kkkk#.gggggTg..#",
        "##################",
    ],
    "legend": {
        "#": {"wall": True},
        ".": {},
        "f": {"sector": "Bramble forge", "arena": "smithy"},
        "A": {"sector": "Bramble forge", "arena": "smithy", "object": "anvil"},
        "a": {"sector": "Old Tansy Meadowsweet apothecary", "arena": "shop"},
        "M": {"sector": "Old Tansy Meadowsweet apothecary", "arena": "shop", "object": "mortar"},
        "k": {"sector": "Pike cottage", "arena": "kitchen"},
        "B": {"sector": "Pike cottage", "arena": "kitchen", "object": "bread oven"},
        "g": {"sector": "Wren green", "arena": "lawn"},
        "T": {"sector": "Wren green", "arena": "lawn", "object": "well"},
        "@": {"sector": "Wren green", "arena": "lawn", "spawn": "stile"},
    },
}
SMITH, HERBALIST, BAKER = "Fenwick Dory", "Ottilie Brask", "Marigold Esk"
# Step 0 is 07:00 on 3 June 2024; a step is five sim minutes.
START = datetime(2024, 6, 3, 7, tzinfo=UTC)
SEC_PER_STEP = 300
# Tiles the smith walks to: on the green, then in the apothecary.
GREEN_TILE, APOTHECARY_TILE = (9, 8), (15, 2)


def _resident(name: str, home: str, trade: str) -> dict[str, Any]:
    return {
        "name": name,
        "innate": "steady",
        "learned": f"{name} {trade}.",
        "living_area": home,
        "start": {"address": home},
    }


def village_simulation(owner: User) -> Simulation:
    """The village and a simulation of its three residents, at step 0."""
    town = town_create(owner=owner, data=GRID)
    base = base_create(
        owner=owner,
        data={
            "name": "wren folk",
            "town": town.name,
            "start_time": START.isoformat(),
            "sec_per_step": SEC_PER_STEP,
            "residents": [
                _resident(SMITH, FORGE, "shoes horses"),
                _resident(HERBALIST, APOTHECARY, "dries herbs"),
                _resident(BAKER, COTTAGE, "bakes rye loaves"),
            ],
        },
    )
    return simulation_create_from_base(
        owner=owner, base=base.pk, seed=5, config={"cognition": "minimal"}
    )


def item(level: str, description: str, at: str, minutes: int, **more: Any) -> PlanItemPayload:
    """A plan item starting at `at` (HH:MM) on the village's first day."""
    hour, minute = (int(v) for v in at.split(":"))
    start = START.replace(hour=hour, minute=minute)
    return cast(
        PlanItemPayload,
        {
            "level": level,
            "description": description,
            "start": start.isoformat(),
            "duration_minutes": minutes,
            **more,
        },
    )


# The smith's morning: a day item, an hour block and its actions (made at step 1); at
# step 3 a re-plan drops the rest of the block's actions and a walk to the green replaces
# them; at step 6 it walks on to the apothecary.
SMITH_PLAN = [
    item("day", "mind the forge", "07:00", 300),
    item("hour", "shoe the miller's horse", "07:00", 60, address=FORGE, parent_index=0),
    *(
        item("action", what, at, 15, address=FORGE, parent_index=1)
        for what, at in [
            ("stoke the fire", "07:00"),
            ("hammer horseshoes", "07:15"),
            ("cool the shoes", "07:30"),
            ("sweep the floor", "07:45"),
        ]
    ),
]
SMITH_REPLAN = [
    item("action", "fetch water from the well", "07:15", 30, parent_start=START.isoformat()),
    item("action", "buy salve for a burn", "07:45", 15, parent_start=START.isoformat()),
]


def village_morning(simulation: Simulation, steps: int = 10) -> None:
    """The smith's plan, re-plan and walk written to the log, and `steps` steps closed."""
    smith: dict[int, list[EventDraft]] = {
        1: [plan_made(agent=SMITH, items=SMITH_PLAN)],
        3: [
            plan_revised(agent=SMITH, since=(START + timedelta(minutes=15)).isoformat()),
            plan_made(agent=SMITH, items=SMITH_REPLAN),
            agent_moved(agent=SMITH, tile=GREEN_TILE),
        ],
        6: [agent_moved(agent=SMITH, tile=APOTHECARY_TILE)],
    }
    events_append_steps(
        simulation=simulation,
        batches=[
            (step, [*smith.get(step, []), simulation_stepped(step=step)])
            for step in range(1, steps + 1)
        ],
    )
    simulation.refresh_from_db()
