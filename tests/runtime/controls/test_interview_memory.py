"""Offline interviews say what the resident remembers, whatever the question's phrasing:
holders state the fact (saying who told them), non-holders say they have not heard, and
the host of an event never denies it. Facts, people and places made up here."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from evaluations.hallucination import claims_to_know
from memories.models import MemoryKind
from memories.services import MemoryDraft, memories_create
from tests.api import create
from world.models import Simulation

ISABELLA, KLAUS, MARIA = "Isabella Rodriguez", "Klaus Mueller", "Maria Lopez"

# A made-up resident's event at a made-up place: Maria thought of it herself, Isabella
# heard it from Maria, Klaus knows nothing of it.
QUIZ = "Tobias Wren is organising a harvest quiz night at the Copper Lantern on March 3 at 7pm"
QUIZ_QUESTIONS = [
    "Did you hear that Tobias Wren is organising a harvest quiz night at the Copper Lantern?",
    "Do you know of any events happening at the Copper Lantern?",
    "Is anything going on at the Copper Lantern soon?",
    "What is Tobias Wren planning?",
    "Who is organising the harvest quiz night?",
    "Have you heard about a quiz night?",
    "Any news about Tobias Wren?",
    "Where will the harvest quiz be held?",
    "When is the quiz night at the Copper Lantern?",
    "What can you tell me about Tobias Wren's quiz?",
    "Is Tobias Wren hosting anything this week?",
    "What's happening on March 3?",
    "Have you heard whether the Copper Lantern is putting on a quiz?",
]
# An event Klaus hosts (his own whispered thought): nobody else knows of it.
CHESS = "I am hosting a chess tournament at the Gilded Rook on March 5 from 2pm to 5pm"
CHESS_QUESTIONS = [
    "Did you hear that Klaus Mueller is hosting a chess tournament at the Gilded Rook?",
    "Do you know of any events happening at the Gilded Rook?",
    "Is there a chess tournament coming up?",
    "Who is hosting the chess tournament?",
    "Where is the chess tournament?",
    "When is the chess tournament at the Gilded Rook?",
    "Is Klaus Mueller organising anything?",
    "Have you heard anything about a tournament in March?",
    "What do you know about the Gilded Rook?",
    "Is anyone throwing a chess event?",
    "Tell me about the chess tournament.",
    "Any news of a tournament at the Gilded Rook?",
]


@pytest.fixture
def town(api: APIClient, settings: Any) -> dict[str, Any]:
    """The three residents with the two made-up facts, as whispers and a memo; interviews
    not throttled (each test asks dozens)."""
    framework = dict(settings.REST_FRAMEWORK)
    framework["DEFAULT_THROTTLE_RATES"] = {
        scope: "100000/minute" for scope in framework["DEFAULT_THROTTLE_RATES"]
    }
    settings.REST_FRAMEWORK = framework
    town = create(api, config={"cognition": "paper"})
    base = f"/api/simulations/{town['id']}/residents"
    for name, statement in ((MARIA, f"{QUIZ}."), (KLAUS, CHESS)):
        said = api.post(f"{base}/{name}/whisper/", {"statement": statement}, format="json")
        assert said.status_code == 201, said.content
    memo = MemoryDraft(
        agent=ISABELLA,
        kind=MemoryKind.THOUGHT,
        description=f"{QUIZ} ({MARIA} told me).",
        importance=7,
        source={"from": MARIA},
    )
    simulation = Simulation.objects.get(pk=town["id"])
    memories_create(simulation=simulation, drafts=[memo], step=simulation.step)
    return town


def _ask(api: APIClient, town: dict[str, Any], name: str, question: str) -> str:
    url = f"/api/simulations/{town['id']}/residents/{name}/interview/"
    response = api.post(url, {"persona": "a neighbour", "question": question}, format="json")
    assert response.status_code == 201, response.content
    return str(response.json()["answer"])


def _not_heard(answer: str) -> bool:
    return "haven't heard" in answer and not claims_to_know(answer)


@pytest.mark.django_db
def test_holders_state_a_heard_fact_and_who_told_them_and_others_have_not_heard(
    api: APIClient, town: dict[str, Any]
) -> None:
    assert len(QUIZ_QUESTIONS) >= 12
    for question in QUIZ_QUESTIONS:
        maria = _ask(api, town, MARIA, question)
        assert "Tobias Wren is organising a harvest quiz night at the Copper Lantern" in maria, (
            question,
            maria,
        )
        isabella = _ask(api, town, ISABELLA, question)
        heard = f"{MARIA} told me that Tobias Wren is organising a harvest quiz night"
        assert heard in isabella, (question, isabella)
        klaus = _ask(api, town, KLAUS, question)
        assert _not_heard(klaus), (question, klaus)
        if question.startswith(("Did you", "Have you", "Do you", "Is ")):  # a yes-no question
            assert claims_to_know(maria) and claims_to_know(isabella), question


@pytest.mark.django_db
def test_the_host_never_denies_its_event_and_nobody_else_claims_it(
    api: APIClient, town: dict[str, Any]
) -> None:
    assert len(CHESS_QUESTIONS) >= 12
    for question in CHESS_QUESTIONS:
        klaus = _ask(api, town, KLAUS, question)
        assert "I am hosting a chess tournament at the Gilded Rook on March 5" in klaus, (
            question,
            klaus,
        )
        assert "haven't heard" not in klaus and "don't" not in klaus, question
        for other in (ISABELLA, MARIA):
            answer = _ask(api, town, other, question)
            assert _not_heard(answer), (question, other, answer)
