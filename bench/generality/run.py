"""A generated world lived through the services a user's REST calls use: its town
(`town_create`), its base with the scenarios (`base_create`), a simulation of it
(`simulation_create_from_base`), run in this process, and interviews (`agent_interview`):
of the plan at `ask_plans_at`, of the news at the end."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from django.contrib.auth.models import User

from agents.bases.services import base_create
from agents.models import Interview
from agents.services import simulation_create_from_base
from bench.generality.world import Question, World
from runtime.controls import agent_interview
from runtime.engine import simulation_run_inline
from world.models import Simulation
from world.townbuild import town_create

PERSONA = "a visitor to the town"


@dataclass
class Lived:
    """A world's simulation and the answers its residents gave, with the wall seconds."""

    world: World
    simulation: Simulation
    answers: list[tuple[Question, str]] = field(default_factory=list)
    wall: float = 0.0


def _run_to(simulation: Simulation, minute: int) -> None:
    """Run in this process until `minute` after the start (no step when there already)."""
    steps = minute * 60 // simulation.sec_per_step - simulation.step
    if steps > 0:
        simulation_run_inline(simulation=simulation, steps=steps)


def _ask(lived: Lived, questions: list[Question]) -> None:
    simulation = lived.simulation
    agents = {a.name: a for a in simulation.agents.all()}
    for question in questions:
        interview: Interview = agent_interview(
            simulation=simulation,
            agent=agents[question.resident],
            persona=PERSONA,
            question=question.text,
        )
        lived.answers.append((question, interview.answer))


def world_live(
    world: World, *, owner: User, hours: float, sec_per_step: int, tag: str = ""
) -> Lived:
    """Make the world as a user would, run it `hours` sim hours from its start at
    `sec_per_step`, and interview its residents."""
    started = time.perf_counter()
    town_data = {**world.town, "name": f"{world.name}{tag}"}
    town_create(owner=owner, data=town_data)
    base = base_create(owner=owner, data={**world.base(owner_tag=tag), "town": town_data["name"]})
    simulation = simulation_create_from_base(
        owner=owner, base=base.pk, seed=world.seed, sec_per_step=sec_per_step,
        config={"cognition": "paper"},
    )  # fmt: skip
    lived = Lived(world, simulation)
    end = round(hours * 60)
    ask_at = min(world.ask_plans_at, end)
    _run_to(simulation, ask_at)
    _ask(lived, world.plan_questions)
    _run_to(simulation, end)
    _ask(lived, world.news_questions)
    lived.wall = time.perf_counter() - started
    return lived
