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


# A holder whose memory of a festival does not name its host and ranks behind memories
# that share the question's words (the host, the pier) without stating it: newer, more
# important, enough of them to fill the interview's memories.
FESTIVAL = "There is a lantern festival at Willow Pier on April 9 (Oscar Vance told me)."
FESTIVAL_DECOYS = [
    "Nadia Perez walked along Willow Pier at dusk.",
    "Nadia Perez is planning her spring garden (Nadia Perez told me).",
    "Isabella Rodriguez saw paper lanterns in a shop window.",
    "Nadia Perez and Isabella Rodriguez had a conversation. Nadia Perez said: "
    '"Willow Pier looks lovely at night."; Isabella Rodriguez said: "Nadia Perez, '
    'I would love to walk there with you."',
    *(
        f"Isabella Rodriguez plans to be sweeping Willow Pier from 0{h}:00 to 0{h}:30"
        for h in range(9)
    ),
]
FESTIVAL_QUESTIONS = [
    "Did you hear that Nadia Perez is holding a lantern festival at Willow Pier?",
    "Is Nadia Perez holding a lantern festival at Willow Pier?",
    "Have you heard about a lantern festival at Willow Pier?",
    "Do you know of any festival at Willow Pier?",
    "Is there a lantern festival coming up?",
    "Where is the lantern festival?",
    "When is the lantern festival at Willow Pier?",
    "Did Nadia Perez organise a festival on Willow Pier?",
    "Any news about a festival on April 9?",
    "Is anyone throwing a lantern festival?",
    "Have you heard whether Willow Pier has a festival in April?",
    "What do you know about the Willow Pier lantern festival?",
]
# A non-holder whose memories share a candidacy's words without stating it: someone else
# wonders who will run, and a conversation names the candidate in one line and the post
# in another.
HARBOUR = "Oscar Vance is running for harbour master in the spring vote (Pia Noor told me)."
HARBOUR_DECOYS = [
    "Lena Ward wonders who will run for harbour master (Pia Noor told me).",
    "Maria Lopez and Oscar Vance had a conversation. Oscar Vance said: "
    '"The tide is high today."; Maria Lopez said: "I wonder who will run for harbour master."',
    "Oscar Vance is mending nets at the pier.",
]
HARBOUR_QUESTIONS = [
    "Did you hear that Oscar Vance is running for harbour master?",
    "Is Oscar Vance running for harbour master?",
    "Have you heard whether Oscar Vance is standing for harbour master?",
    "Do you know if Oscar Vance wants to be harbour master?",
    "Is Oscar Vance a candidate for harbour master?",
    "What is Oscar Vance running for?",
    "Any news of Oscar Vance and the harbour master vote?",
    "Did Oscar Vance say he is running for harbour master?",
    "Will Oscar Vance be on the ballot for harbour master?",
    "Is it true Oscar Vance is running for the harbour master job?",
    "Have you heard that Oscar Vance is campaigning to be harbour master?",
    "Oscar Vance is running for harbour master, right?",
]


def _remember(town: dict[str, Any], agent: str, texts: list[str], importance: int) -> None:
    simulation = Simulation.objects.get(pk=town["id"])
    drafts = [
        MemoryDraft(agent=agent, kind=MemoryKind.THOUGHT, description=t, importance=importance)
        for t in texts
    ]
    memories_create(simulation=simulation, drafts=drafts, step=simulation.step)


@pytest.mark.django_db
def test_a_holder_states_its_fact_behind_memories_that_only_share_its_words(
    api: APIClient, town: dict[str, Any]
) -> None:
    _remember(town, ISABELLA, [FESTIVAL], importance=2)
    _remember(town, ISABELLA, FESTIVAL_DECOYS, importance=9)  # newer, more important
    assert len(FESTIVAL_QUESTIONS) >= 12
    for question in FESTIVAL_QUESTIONS:
        isabella = _ask(api, town, ISABELLA, question)
        told = "Oscar Vance told me that there is a lantern festival at Willow Pier on April 9"
        assert told in isabella, (question, isabella)
        assert "spring garden" not in isabella and "dusk" not in isabella, (question, isabella)
        assert _not_heard(_ask(api, town, KLAUS, question)), question
        if question.startswith(("Did you", "Have you", "Do you", "Is ")):
            assert claims_to_know(isabella), question


@pytest.mark.django_db
def test_memories_that_share_a_facts_words_without_stating_it_claim_nothing(
    api: APIClient, town: dict[str, Any]
) -> None:
    _remember(town, ISABELLA, [HARBOUR], importance=5)
    _remember(town, MARIA, HARBOUR_DECOYS, importance=9)
    assert len(HARBOUR_QUESTIONS) >= 12
    for question in HARBOUR_QUESTIONS:
        isabella = _ask(api, town, ISABELLA, question)
        assert "Pia Noor told me that Oscar Vance is running for harbour master" in isabella, (
            question,
            isabella,
        )
        for other in (MARIA, KLAUS):
            answer = _ask(api, town, other, question)
            assert _not_heard(answer), (question, other, answer)
