"""Residents whose plan has them asleep start no conversation, on the first step of a
night too (before they have lain down). Made-up households of a village no file
describes, each pair close enough to talk whenever awake."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from agents.models import Conversation
from runtime import engine
from tests.runtime.controls.test_interview_meaning import W, _resident
from world.models import Simulation

HOUSEHOLDS = [
    ("Wren cottage", "Aino Lusk", "Per Lusk"),
    ("Alder house", "Juna Castell", "Rafe Castell"),
    ("Moss flat", "Tilde Morrow", "Sven Morrow"),
]


def _household(home: str, one: str, other: str) -> list[dict[str, Any]]:
    return [
        {
            **_resident(me, home, f"{me} mends nets by the quay.", ""),
            "relationships": [{"with": them, "memory": f"{me} and {them} are siblings"}],
        }
        for me, them in ((one, other), (other, one))
    ]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_residents_asleep_by_their_plan_start_no_conversation(api: APIClient, seed: int) -> None:
    base = {
        "name": "households",
        "description": "three households",
        "town": "brindle_green",
        "start_time": "2024-10-07T00:00:00Z",
        "sec_per_step": 60,
        "residents": [r for house in HOUSEHOLDS for r in _household(*house)],
    }
    made = api.post("/api/bases/", base, format="json")
    assert made.status_code == 201, made.content
    body = {"base": made.json()["id"], "seed": seed, "config": {"cognition": "paper"}}
    created = api.post("/api/simulations/", body, format="json")
    assert created.status_code == 201, created.content
    simulation = engine.simulation_run_inline(
        simulation=Simulation.objects.get(pk=created.json()["id"]), steps=3
    )
    assert simulation.status == "idle", simulation.status_reason
    assert all(a.living_area.startswith(W) for a in simulation.agents.all())
    talks = Conversation.objects.filter(simulation=simulation)
    assert not talks.exists(), [(c.participants, c.lines[:1]) for c in talks]
