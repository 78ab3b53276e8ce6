"""A simulation's named facts and who holds one, over REST: a made-up base naming a made-up
fact, memories the test writes at known steps, and the holders, their first steps and their
tellers as those memories say; another user's simulation a 404; bad input a 400 naming the
field."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from rest_framework.test import APIClient

from memories.models import MemoryKind
from memories.services import MemoryDraft, memories_create
from world.models import Simulation

from . import error_of, fields_of

W = "Brindle Green"
FACT = "the mill pond is frozen over for skating"
WORDS = [["pond"], ["frozen", "ice"]]
INES, BRAM, CLEO, DOV = "Ines Vark", "Bram Vark", "Cleo Dunn", "Dov Ashby"


def _resident(name: str, home: str) -> dict[str, Any]:
    return {
        "name": name,
        "currently": f"{name} is saving for a new workbench.",
        "living_area": f"{W}:{home}:main room",
        "start": {"address": f"{W}:{home}:main room"},
        "seed_memories": [f"{name} once fixed a tandem in one afternoon"],
    }


def _base(api: APIClient) -> int:
    """A base of four made-up residents whose measures name the made-up fact."""
    document = {
        "name": "skaters",
        "town": "brindle_green",
        "start_time": "2024-01-08T07:00:00Z",
        "sec_per_step": 10,
        "residents": [
            _resident(INES, "Wren cottage"),
            _resident(BRAM, "Wren cottage"),
            _resident(CLEO, "Alder house"),
            _resident(DOV, "Moss flat"),
        ],
        "measures": {
            "facts": [
                {"text": FACT, "origin": INES, "words": WORDS, "published": "made up"},
                {"text": "the pond"},  # the base's schema takes it; too short to measure
            ]
        },
    }
    response = api.post("/api/bases/", document, format="json")
    assert response.status_code == 201, response.content
    return int(response.json()["id"])


def _tell(simulation: Simulation, step: int, agent: str, text: str, teller: str = "") -> None:
    source = {"from": teller} if teller else {}
    kind = MemoryKind.CONVERSATION if teller else MemoryKind.THOUGHT
    draft = MemoryDraft(agent=agent, kind=kind, description=text, importance=5, source=source)
    memories_create(simulation=simulation, drafts=[draft], step=step)


@pytest.fixture
def skaters(api: APIClient) -> Simulation:
    """Ines hears it at step 4 (a thought), tells Bram at 9, Bram tells Cleo at 15 (Cleo
    thought of the pond at 12 without the ice: not the fact); Dov never hears it."""
    response = api.post(
        "/api/simulations/",
        {"base": _base(api), "config": {"cognition": "minimal"}},
        format="json",
    )
    assert response.status_code == 201, response.content
    simulation = Simulation.objects.get(pk=response.json()["id"])
    _tell(simulation, 4, INES, "The mill pond is frozen over, thick enough for skating.")
    _tell(simulation, 9, BRAM, "Ines Vark said: 'The pond is frozen, come skating.'", INES)
    _tell(simulation, 12, CLEO, "Cleo Dunn walks past the mill pond.")
    _tell(simulation, 15, CLEO, "Bram Vark said the pond is all ice now.", BRAM)
    _tell(simulation, 20, BRAM, "Ines Vark said the pond is still frozen.", INES)
    Simulation.objects.filter(pk=simulation.pk).update(step=30)
    simulation.refresh_from_db()
    return simulation


def _at(simulation: Simulation, step: int) -> str:
    time = simulation.start_time + timedelta(seconds=step * simulation.sec_per_step)
    return time.isoformat().replace("+00:00", "Z")


def test_the_bases_measurable_facts_are_listed(api: APIClient, skaters: Simulation) -> None:
    response = api.get(f"/api/simulations/{skaters.pk}/facts/")
    assert response.status_code == 200, response.content
    assert response.json() == {
        "facts": [{"text": FACT, "origin": INES, "words": WORDS, "published": "made up"}]
    }


def test_holders_first_steps_and_tellers_are_the_memories(
    api: APIClient, skaters: Simulation
) -> None:
    # The base's fact by its clause: the base's words and origin.
    response = api.get(f"/api/simulations/{skaters.pk}/facts/holders/", {"fact": FACT})
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["fact"]["words"] == WORDS and body["source"] == INES
    assert body["residents"] == 4 and body["step"] == 30
    assert body["holders"] == [
        {"name": INES, "step": 4, "sim_time": _at(skaters, 4), "told_by": None, "hop": 0},
        {"name": BRAM, "step": 9, "sim_time": _at(skaters, 9), "told_by": INES, "hop": 1},
        {"name": CLEO, "step": 15, "sim_time": _at(skaters, 15), "told_by": BRAM, "hop": 2},
    ]


def test_any_clause_with_its_words(api: APIClient, skaters: Simulation) -> None:
    # Ice or "frozen over": Ines's and Cleo's memories say it, none of Bram's does.
    query = {"fact": "there is ice on the pond", "words": ["pond", "ice,frozen over"]}
    body = api.get(f"/api/simulations/{skaters.pk}/facts/holders/", query).json()
    assert [(h["name"], h["step"], h["told_by"]) for h in body["holders"]] == [
        (INES, 4, None),
        (CLEO, 15, BRAM),
    ]
    # No origin given: the first holder is the source; Cleo's teller holds no chain to it.
    assert body["source"] == INES and body["holders"][1]["hop"] is None
    # A clause nobody's memories state: no holders, no source.
    query = {"fact": "the blacksmith sells violins", "words": ["violin"]}
    body = api.get(f"/api/simulations/{skaters.pk}/facts/holders/", query).json()
    assert body["holders"] == [] and body["source"] is None


def test_another_users_simulation_is_not_found(other_api: APIClient, skaters: Simulation) -> None:
    for url in ("facts/", "facts/holders/?fact=the%20mill%20pond%20is%20frozen"):
        response = other_api.get(f"/api/simulations/{skaters.pk}/{url}")
        assert response.status_code == 404, response.content
        assert error_of(response)["code"] == "not_found"


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({}, "fact"),
        ({"fact": ""}, "fact"),
        ({"fact": "x" * 201}, "fact"),
        ({"fact": "the pond"}, "fact"),  # one word of four letters or more, and no words
        ({"fact": FACT, "words": ["pond,"]}, "words"),  # an empty entry
        ({"fact": FACT, "words": ["w" * 61]}, "words"),
        ({"fact": FACT, "words": [f"g{i}" for i in range(9)]}, "words"),
        ({"fact": FACT, "words": [",".join(f"w{i}" for i in range(9))]}, "words"),
        ({"fact": FACT, "origin": "Nobody Here"}, "origin"),
        ({"fact": FACT, "origin": ""}, "origin"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(
    api: APIClient, skaters: Simulation, query: dict[str, Any], field: str
) -> None:
    response = api.get(f"/api/simulations/{skaters.pk}/facts/holders/", query)
    assert response.status_code == 400, response.content
    assert field in fields_of(response), response.content


def test_a_seed_memory_holds_from_step_0(api: APIClient, skaters: Simulation) -> None:
    # Every resident's seed memory: "<name> once fixed a tandem in one afternoon".
    query = {"fact": "someone fixed a tandem", "words": ["tandem"]}
    body = api.get(f"/api/simulations/{skaters.pk}/facts/holders/", query).json()
    assert sorted(h["name"] for h in body["holders"]) == sorted([INES, BRAM, CLEO, DOV])
    assert {h["step"] for h in body["holders"]} == {0}
    assert {h["told_by"] for h in body["holders"]} == {None}
    assert datetime.fromisoformat(body["holders"][0]["sim_time"]) == skaters.start_time
