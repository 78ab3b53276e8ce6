"""Bench towns (bench/towns.py): made-up residents spread over a town's homes and
workplaces, which the offline planner sends them to; on the Ville and on a town made up
here, so nothing depends on the Ville's names."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from agents.cognition.places import KnownPlaces
from agents.offline.policy import place_for, summary_text
from agents.offline.routine import routine
from bench.towns import Newcomer, newcomers_drawn, residents_spread, town_places
from llm.inputs import agent_identity
from tests.factories import N25, simulation_of
from world.addresses import Address
from world.gridtown import town_from_grid
from world.models import Agent, Location, LocationKind, Town
from world.paths import walkable
from world.selectors import address_at

# Two houses (one with two bedrooms and a kitchen), a bakery and a mill of two arenas.
GRID = {
    "format": "smallville-town/1",
    "name": "thistle_end",
    "world": "Thistle End",
    "rows": [
        "##############",
        "#aab#ccd#eeee#",
        "#aaa#ccc#eeee#",
        "#.a###.####.##",
        "#............#",
        "#.##ff###gg#.#",
        "#.#fffh#ggkk.#",
        "#.#fffh#ggkk.#",
        "#.######.#####",
        "#............#",
        "##############",
    ],
    "legend": {
        "#": {"wall": True},
        ".": {},
        "a": {"sector": "Fern house", "arena": "front bedroom"},
        "b": {"sector": "Fern house", "arena": "front bedroom", "object": "double bed"},
        "c": {"sector": "Fern house", "arena": "back bedroom"},
        "d": {"sector": "Fern house", "arena": "back bedroom", "object": "bunk"},
        "e": {"sector": "Fern house", "arena": "kitchen"},
        "f": {"sector": "Sloe cottage", "arena": "room"},
        "h": {"sector": "Sloe cottage", "arena": "room", "object": "bed"},
        "g": {"sector": "Crumb bakery", "arena": "bakehouse"},
        "k": {"sector": "Crumb bakery", "arena": "bakehouse", "object": "oven"},
    },
}


def planned_workplace(agent: Agent, town: Town) -> tuple[str, str]:
    """The (sector, arena) the offline planner puts the resident's working hours at."""
    inputs = {
        "agent_name": agent.name,  # as the planner asks
        "lifestyle": agent.lifestyle,
        "daily_plan_requirement": agent.daily_plan_requirement,
        "summary": summary_text({"agent_identity": agent_identity(agent), "agent_name": ""}),
        "living_area": agent.living_area,
        "places": KnownPlaces(agent, town).text(),
    }
    return place_for(f"working at {routine(inputs).workplace}", inputs)


def newcomer_agent(newcomer: Newcomer) -> Agent:
    return Agent(name=newcomer.name, **newcomer.identity)


def arenas_of(town: Town) -> set[str]:
    rows = Location.objects.filter(town=town, kind=LocationKind.ARENA)
    return set(rows.values_list("address", flat=True))


def starts_at_home(newcomer: Newcomer, town: Town) -> bool:
    tile = newcomer.tile
    return walkable(town=town, tile=tile) and address_at(town=town, tile=tile) == newcomer.home


@pytest.mark.django_db
def test_homes_have_beds_and_workplaces_are_where_nobody_lives() -> None:
    town = town_from_grid(data=GRID)
    places = town_places(town=town)
    assert set(places.homes) == {
        "Thistle End:Fern house:front bedroom",
        "Thistle End:Fern house:back bedroom",
        "Thistle End:Sloe cottage:room",
    }
    assert places.workplaces == ("Thistle End:Crumb bakery:bakehouse",)
    made = newcomers_drawn(town=town, count=7, seed=3)
    assert len({n.name for n in made}) == 7
    assert {n.home for n in made} == set(places.homes)
    for newcomer in made:
        assert starts_at_home(newcomer, town)
        beds = Location.objects.filter(town=town, parent__address=newcomer.home)
        assert all(town.tile_index(*newcomer.tile) not in bed.tiles for bed in beds)
        agent = newcomer_agent(newcomer)
        assert planned_workplace(agent, town) == ("Crumb bakery", "bakehouse")
        # Its home's shared kitchen it knows; the other bedroom of a house it does not.
        known = agent.spatial_memory["Thistle End"]
        if "Fern house" in newcomer.home:
            assert set(known["Fern house"]) == {Address.parse(newcomer.home).arena, "kitchen"}


@pytest.mark.django_db
def test_a_hundred_residents_spread_over_the_ville(user: User) -> None:
    simulation = simulation_of(user, N25)
    base = set(simulation.agents.values_list("name", flat=True))
    residents_spread(simulation, 100, seed=0)
    town = simulation.town
    agents = {a.name: a for a in simulation.agents.all()}
    assert len(agents) == 100
    made = newcomers_drawn(town=town, count=75, seed=0, taken=base)
    assert {n.name for n in made} == set(agents) - base
    words = {word for name in base for word in name.split()}
    assert not any(word in words for n in made for word in n.name.split())
    arenas, places = arenas_of(town), town_places(town=town)
    assert {n.home for n in made} == set(places.homes) and len(places.homes) >= 20
    assert {n.workplace for n in made} == set(places.workplaces) and len(places.workplaces) >= 6
    assert set(places.homes) | set(places.workplaces) <= arenas
    assert not set(places.homes) & set(places.workplaces)
    for newcomer in made:
        agent = agents[newcomer.name]
        assert agent.living_area == newcomer.home
        assert (agent.tile_x, agent.tile_y) == newcomer.tile
        assert starts_at_home(newcomer, town)
        assert agent.memories.count() == 2  # its seed statements, as a base's residents
        work = Address.parse(newcomer.workplace)
        assert planned_workplace(agent, town) == (work.sector, work.arena), newcomer.name
    # Housemates stand apart while the home has room.
    tiles = [(n.home, n.tile) for n in made]
    assert len(set(tiles)) == len(tiles)


@pytest.mark.django_db
def test_spread_residents_are_the_seeds(ville: Town) -> None:
    first = newcomers_drawn(town=ville, count=40, seed=1)
    assert newcomers_drawn(town=ville, count=40, seed=1) == first
    other = newcomers_drawn(town=ville, count=40, seed=2)
    assert [n.name for n in other] != [n.name for n in first]
    assert [(n.home, n.workplace) for n in other] != [(n.home, n.workplace) for n in first]


@pytest.mark.django_db
def test_spread_over_a_made_up_base(user: User) -> None:
    simulation = simulation_of(user, "base_brindle_green_n5")
    base = list(simulation.agents.values_list("name", flat=True))
    residents_spread(simulation, 20, seed=4)
    town = simulation.town
    places = town_places(town=town)
    newcomers = simulation.agents.exclude(name__in=base)
    assert newcomers.count() == 15
    assert {a.living_area for a in newcomers} == set(places.homes)
    for agent in newcomers:
        sector, arena = planned_workplace(agent, town)
        assert f"{town.world_name}:{sector}:{arena}" in places.workplaces
