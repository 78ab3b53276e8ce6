"""A whispered intention with a time or a place is in the resident's plan at its next
step, in a village no file describes; a thought that means nothing to do is not. People,
places and phrasings made up here."""

from __future__ import annotations

from datetime import timedelta

import pytest
from rest_framework.test import APIClient

from agents.models import PlanItem, PlanLevel
from runtime import engine
from world.models import Simulation

from .test_interview_meaning import OSSIAN, TEAL, village  # noqa: F401 (a fixture)

# (the whisper, the hour and minute it names or None, the place it names or "", words of
# what it means to do that the plan item keeps)
WHISPERS = [
    (f"I should ask {OSSIAN} today whether he will teach me to mend nets", None, "", "mend nets"),
    ("I will go to Linden park at 4pm to sketch the ducks", (16, 0), "Linden park", "sketch"),
    ("I need to buy a ball of string at Pennywhistle shop", None, "Pennywhistle shop", "string"),
    ("At 6pm I'm going to practise the fiddle for the harvest dance", (18, 0), "", "fiddle"),
    ("Tonight at nine I must write a letter to my brother", (21, 0), "", "letter"),
    ("Let me stop by Kettle cafe at half past two with a dish", (14, 30), "Kettle cafe", "dish"),
    ("I'm going to fix the gate of Wren cottage at 11am", (11, 0), "Wren cottage", "gate"),
]


def _whisper(api: APIClient, simulation: Simulation, name: str, statement: str) -> None:
    url = f"/api/simulations/{simulation.pk}/residents/{name}/whisper/"
    said = api.post(url, {"statement": statement}, format="json")
    assert said.status_code == 201, said.content


def _live_blocks(simulation: Simulation, name: str) -> list[PlanItem]:
    return list(
        PlanItem.objects.filter(
            simulation=simulation, agent__name=name, level=PlanLevel.HOUR, superseded=False
        ).order_by("start")
    )


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("statement", "clock", "place", "words"), WHISPERS)
def test_a_whispered_intention_is_in_the_plan_at_the_next_step(
    api: APIClient,
    village: Simulation,  # noqa: F811
    statement: str,
    clock: tuple[int, int] | None,
    place: str,
    words: str,
) -> None:
    village = engine.simulation_run_inline(simulation=village, steps=2)
    whispered_at = village.sim_time
    _whisper(api, village, TEAL, statement)
    village = engine.simulation_run_inline(simulation=village, steps=1)
    planned = [b for b in _live_blocks(village, TEAL) if words in b.description]
    assert len(planned) == 1, [(b.start, b.description) for b in _live_blocks(village, TEAL)]
    block = planned[0]
    if clock is not None:
        assert (block.start.hour, block.start.minute) == clock, block.start
    else:
        assert whispered_at < block.start <= whispered_at + timedelta(minutes=20), block.start
    if place:
        assert f":{place}:" in block.address, block.address


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "statement",
    ["I like the smell of tar on the quay", f"{OSSIAN} is a patient teacher", "I want to paint"],
)
def test_a_thought_with_nothing_to_do_at_a_time_or_place_plans_nothing(
    api: APIClient,
    village: Simulation,  # noqa: F811
    statement: str,
) -> None:
    village = engine.simulation_run_inline(simulation=village, steps=2)
    before = [(b.start, b.description) for b in _live_blocks(village, TEAL)]
    _whisper(api, village, TEAL, statement)
    village = engine.simulation_run_inline(simulation=village, steps=1)
    assert [(b.start, b.description) for b in _live_blocks(village, TEAL)] == before
