"""Offline interviews answer by meaning, in a village no file describes: asked in words
other than the memory's own, a resident that holds the news says yes and tells it, one
that does not says it has not heard; asked where it will be at a time, it names the place
its plan has then. People, places, news and phrasings made up here."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from agents.models import PlanItem, PlanLevel
from evaluations.hallucination import claims_to_know
from memories.models import MemoryKind
from memories.services import MemoryDraft, memories_create
from runtime import engine
from world.addresses import Address
from world.models import Simulation

W = "Brindle Green"
TEAL, OSSIAN, MIRELLE, BRAM = "Teal Varga", "Ossian Pike", "Mirelle Dacre", "Bram Holloway"


def _resident(name: str, home: str, learned: str, requirement: str) -> dict[str, Any]:
    return {
        "name": name,
        "age": 40,
        "innate": "steady, friendly",
        "learned": learned,
        "currently": f"{name} is repainting a fence.",
        "lifestyle": f"{name} goes to bed around 10 pm and wakes up around 6 am.",
        "living_area": f"{W}:{home}:main room",
        "daily_plan_requirement": requirement,
        "start": {"address": f"{W}:{home}:main room"},
        "seed_memories": [f"{name} likes a strong cup of tea in the morning"],
    }


def _base() -> dict[str, Any]:
    return {
        "name": "ferrymen",
        "description": "four made-up villagers",
        "town": "brindle_green",
        "start_time": "2024-09-02T00:00:00Z",
        "sec_per_step": 60,
        "residents": [
            _resident(TEAL, "Wren cottage", f"{TEAL} keeps the ferry timetable.", ""),
            _resident(OSSIAN, "Alder house", f"{OSSIAN} repairs sails.", ""),
            _resident(MIRELLE, "Moss flat", f"{MIRELLE} teaches the fiddle.", ""),
            _resident(BRAM, "Alder house", f"{BRAM} sells eggs.", ""),
        ],
    }


@pytest.fixture
def village(api: APIClient, settings: Any) -> Simulation:
    framework = dict(settings.REST_FRAMEWORK)
    framework["DEFAULT_THROTTLE_RATES"] = {
        scope: "100000/minute" for scope in framework["DEFAULT_THROTTLE_RATES"]
    }
    settings.REST_FRAMEWORK = framework
    base = api.post("/api/bases/", _base(), format="json")
    assert base.status_code == 201, base.content
    body = {"base": base.json()["id"], "seed": 3, "config": {"cognition": "paper"}}
    created = api.post("/api/simulations/", body, format="json")
    assert created.status_code == 201, created.content
    return Simulation.objects.get(pk=created.json()["id"])


def _remember(simulation: Simulation, agent: str, texts: list[str], importance: int) -> None:
    drafts = [
        MemoryDraft(agent=agent, kind=MemoryKind.THOUGHT, description=t, importance=importance)
        for t in texts
    ]
    memories_create(simulation=simulation, drafts=drafts, step=simulation.step)


def _ask(api: APIClient, simulation: Simulation, name: str, question: str) -> str:
    url = f"/api/simulations/{simulation.pk}/residents/{name}/interview/"
    response = api.post(url, {"persona": "a visitor", "question": question}, format="json")
    assert response.status_code == 201, response.content
    return str(response.json()["answer"])


def _not_heard(answer: str) -> bool:
    return "haven't heard" in answer and not claims_to_know(answer)


# (what the holder heard, the words of it an answer must carry, questions in other words)
NEWS = [
    (
        "The footbridge over Gull Creek is shut for repairs until the end of the month",
        "footbridge over Gull Creek is shut",
        [
            "Can I walk over the stream at the moment?",
            "Anything happening in the coming days?",
            "What is the news about?",
            "Is there any trouble getting across the water?",
        ],
    ),
    (
        "Halvard Osk is giving a talk on mushrooms at the reading room on Thursday at 6pm",
        "Halvard Osk is giving a talk on mushrooms",
        [
            "Is anyone lecturing about fungi soon?",
            "Anything happening in the coming days?",
            "What's new around here?",
        ],
    ),
    (
        "A gale is forecast to hit the harbour tonight and the boats must stay moored",
        "gale is forecast to hit the harbour",
        [
            "Should the fishermen keep off the sea this evening?",
            "What is the news about?",
            "Is the weather turning nasty?",
        ],
    ),
    (
        "Sabine Roe is standing for chair of the rowing club",
        "Sabine Roe is standing for chair of the rowing club",
        [
            "Who wants to lead the rowing club?",
            "Is someone campaigning to lead the oarsmen?",
            "What's new around here?",
        ],
    ),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("heard", "core", "questions"), NEWS)
def test_holders_answer_questions_in_other_words_and_others_say_no(
    api: APIClient, village: Simulation, heard: str, core: str, questions: list[str]
) -> None:
    _remember(village, TEAL, [f"{heard} ({OSSIAN} told me)."], importance=7)
    _remember(village, OSSIAN, [f"{heard}."], importance=7)
    # Mirelle holds other, unrelated news; Bram none at all.
    _remember(village, MIRELLE, ["My cousin is visiting from the mainland next spring."], 5)
    for question in questions:
        teal = _ask(api, village, TEAL, question)
        assert f"{OSSIAN} told me that" in teal and core.lower() in teal.lower(), (question, teal)
        ossian = _ask(api, village, OSSIAN, question)
        assert core.lower() in ossian.lower(), (question, ossian)
        for other in (MIRELLE, BRAM):
            answer = _ask(api, village, other, question)
            assert core.lower() not in answer.lower(), (question, other, answer)
            if question.rstrip("?").split()[0] in ("Is", "Can", "Should", "Any", "Anything"):
                assert not claims_to_know(answer) or "cousin" in answer, (question, answer)


@pytest.mark.django_db
def test_a_holder_of_an_event_it_organises_never_denies_it(
    api: APIClient, village: Simulation
) -> None:
    _remember(village, BRAM, ["I am organising a sea shanty evening at Kettle cafe on Friday."], 8)
    for question in (
        "Anything happening in the coming days?",
        "What is the news about?",
        "Anything new around here?",
        "What are you organising?",
    ):
        answer = _ask(api, village, BRAM, question)
        assert "I am organising a sea shanty evening" in answer, (question, answer)
        assert "haven't heard" not in answer, (question, answer)
        assert "shanty" not in _ask(api, village, MIRELLE, question), question


PLAN_QUESTIONS = [
    "Where will you be at {clock} tomorrow?",
    "Tomorrow at {clock}, where can I find you?",
    "What are you doing tomorrow at {clock}?",
    "If I come looking for you at {clock} tomorrow, where will you be?",
    "Where are you going to be at {clock} tomorrow?",
]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("clock", ["3pm", "10am", "11 pm"])
def test_asked_where_it_will_be_at_a_time_it_names_the_place_of_its_plan(
    api: APIClient, village: Simulation, clock: str
) -> None:
    village = engine.simulation_run_inline(simulation=village, steps=2)
    hour = {"3pm": 15, "10am": 10, "11 pm": 23}[clock]
    for name in (TEAL, OSSIAN, MIRELLE, BRAM):
        blocks = PlanItem.objects.filter(
            agent__simulation=village, agent__name=name, level=PlanLevel.HOUR, superseded=False
        )
        then = next(
            b for b in blocks if b.start.hour <= hour < b.start.hour + b.duration_minutes / 60
        )
        place = Address.parse(then.address)
        for question in PLAN_QUESTIONS:
            answer = _ask(api, village, name, question.format(clock=clock))
            assert place.arena in answer and place.sector in answer, (name, question, then, answer)
