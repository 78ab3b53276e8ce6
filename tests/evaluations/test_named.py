"""Facts and events an evaluation measures by name, as parameters or from its base, in a
town of the project's own (the village): people, places and happenings made up here."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from django.contrib.auth.models import User

from agents.bases.services import base_document, base_shipped
from agents.events import agent_moved
from evaluations.emergence import sector_tiles
from evaluations.models import Evaluation
from evaluations.named import measures_parse
from evaluations.runner import evaluation_run
from memories.models import MemoryKind
from memories.services import MemoryDraft, memories_create
from tests.api import fields_of
from tests.factories import simulation_of
from world.eventlog import events_append
from world.models import Base, Simulation

VILLAGE = "base_brindle_green_n5"
ODILE, TOMAS, PRIYA, ROSA, FELIX = (
    "Odile Marsh",
    "Tomas Marsh",
    "Priya Quill",
    "Rosa Quill",
    "Felix Brand",
)
START = datetime(2023, 3, 6, 17, 0, tzinfo=UTC)
PUPPETS = {
    "what": "a puppet show for the children",
    "host": FELIX,
    "place": "Linden park",
    "start": "2023-03-06T18:00:00+00:00",
    "end": "2023-03-06T19:00:00+00:00",
    "words": [["puppet"]],
}
KILN = "the pottery kiln by the mill is broken"


def _tell(simulation: Simulation, step: int, agent: str, text: str, teller: str | None) -> None:
    draft = MemoryDraft(
        agent=agent,
        kind=MemoryKind.THOUGHT,
        description=text,
        importance=6,
        source={"from": teller} if teller else {},
    )
    memories_create(simulation=simulation, drafts=[draft], step=step)


@pytest.fixture
def evening(user: User) -> Simulation:
    """The village from 17:00: Felix tells Priya of his puppet show and she tells Rosa; Odile
    hears of the broken kiln from Tomas; Priya and Rosa walk into the park during the show."""
    simulation = simulation_of(user, VILLAGE, seed=2, start=START, cognition="paper")
    town = simulation.town
    park = sorted(sector_tiles(town, "Linden park"))
    inside = town.tile_xy(park[0])
    _tell(simulation, 10, FELIX, "I am putting on a puppet show in Linden park at six.", None)
    _tell(simulation, 20, PRIYA, "Felix Brand is putting on a puppet show at six.", FELIX)
    _tell(simulation, 30, ROSA, "There will be a puppet show in the park tonight.", PRIYA)
    _tell(simulation, 40, TOMAS, "The pottery kiln by the mill is broken again.", None)
    _tell(simulation, 50, ODILE, "Tomas Marsh said the pottery kiln by the mill is broken.", TOMAS)
    for step, agent in [(380, PRIYA), (390, ROSA)]:  # 18:03 and 18:05
        events_append(
            simulation=simulation, drafts=[agent_moved(agent=agent, tile=inside)], step=step
        )
    Simulation.objects.filter(pk=simulation.pk).update(step=420)  # 18:10
    simulation.refresh_from_db()
    return simulation


def test_an_evaluation_measures_the_fact_and_event_it_names(api, evening: Simulation):
    made = api.post(
        f"/api/simulations/{evening.pk}/evaluations/",
        {"kinds": ["diffusion", "coordination"], "facts": [KILN], "events": [PUPPETS]},
        format="json",
    )
    assert made.status_code == 201, made.content
    assert [e["host"] for e in made.json()["events"]] == [FELIX]
    evaluation = evaluation_run(evaluation=Evaluation.objects.get(simulation=evening))

    measured = evaluation.result["simulations"][str(evening.pk)]
    (kiln,) = measured["news"]
    assert (kiln["fact"], kiln["source"]) == (KILN, TOMAS)  # the first to hold it
    assert kiln["residents"][ODILE]["from"] == TOMAS and kiln["residents"][ODILE]["hop"] == 1
    (show,) = measured["events"]
    assert show["came_residents"] == [PRIYA, ROSA]
    assert show["invited_residents"] == [PRIYA, ROSA]  # each heard it from another
    assert show["window"] == "2023-03-06 18:00-19:00 at Linden park"
    # Asked "Did you hear that ...?", the offline residents answer by their memories.
    (asked,) = evaluation.result["diffusion"]["facts"]
    assert sorted(asked["by_interview"]["knows"]) == [ODILE, TOMAS]


def test_a_base_names_what_its_evaluations_measure(api, user: User):
    """A copy of the village whose file names the kiln and the show: an evaluation naming
    nothing measures those, and the interview asks the base's questions on the news."""
    document = base_document(base=base_shipped(VILLAGE))
    document["name"] = "village with news"
    document["measures"] = {
        "facts": [{"text": KILN, "origin": TOMAS}],
        "events": [PUPPETS],
        "questions": ["Is the kiln working?", "What is on in the park tonight?"],
    }
    created = api.post("/api/bases/", document, format="json")
    assert created.status_code == 201, created.content
    simulation = simulation_of(user, str(created.json()["id"]), seed=1)
    made = api.post(
        f"/api/simulations/{simulation.pk}/evaluations/", {"kinds": ["coordination"]}, format="json"
    )
    assert made.status_code == 201, made.content
    evaluation = Evaluation.objects.get(simulation=simulation)
    assert [f["text"] for f in evaluation.facts] == [KILN]
    assert [e["place"] for e in evaluation.events] == ["Linden park"]
    assert evaluation.questions == ["Is the kiln working?", "What is on in the park tonight?"]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"place": "the moon"}, "events[0].place"),
        ({"end": "2023-03-06T17:00:00+00:00"}, "events[0]"),
        ({"start": "six o'clock"}, "events[0].start"),
        ({"colour": "red"}, "events[0].colour"),
        ({"words": "puppet"}, "events[0].words"),
    ],
)
def test_a_bad_event_is_a_400_naming_its_field_and_writes_nothing(
    api, evening: Simulation, change: dict[str, Any], field: str
):
    made = api.post(
        f"/api/simulations/{evening.pk}/evaluations/",
        {"kinds": ["coordination"], "events": [{**PUPPETS, **change}]},
        format="json",
    )
    assert made.status_code == 400
    assert field in fields_of(made), made.json()
    assert not Evaluation.objects.exists()


def test_a_base_whose_event_is_at_no_place_of_its_town_is_refused(api):
    document = base_document(base=base_shipped(VILLAGE))
    document["name"] = "village with a lost show"
    document["measures"] = {"events": [{**PUPPETS, "place": "Atlantis"}]}
    created = api.post("/api/bases/", document, format="json")
    assert created.status_code == 400
    assert "measures.events[0].place" in fields_of(created)
    assert not Base.objects.filter(name="village with a lost show").exists()


def test_words_hold_at_the_start_of_a_word():
    ((fact,), ()) = measures_parse(
        [{"text": "Rosa Quill runs for the council", "words": [["rosa"], ["council"], ["run"]]}],
        [],
    )
    assert fact.about("Rosa Quill is running for the council.")
    assert not fact.about("Rosa Quill sat on the council's bench by the brunette.")  # brun-
    assert not fact.about("Rosa Quill went for a run.")  # no council
