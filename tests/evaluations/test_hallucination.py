"""A claim to know someone or something is a hallucination exactly when no memory backs it."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from evaluations.hallucination import claim_of_fact, claim_of_person, claims_to_know
from evaluations.named import measures_resolve
from tests.factories import three_residents
from world.models import Agent


@pytest.fixture
def klaus(user: User) -> Agent:
    simulation = three_residents(user, 4)
    return simulation.agents.get(name="Klaus Mueller")


@pytest.mark.parametrize(
    ("answer", "claimed"),
    [
        ("Yes, she runs Hobbs Cafe.", True),
        ("I know him from the college.", True),
        ("I've heard about it from a friend.", True),
        ("No, I don't know who that is.", False),
        ("Yes... well, I'm not sure, actually.", False),
        ("I have never heard of him.", False),
        ("The weather is nice today.", False),
        # A "no" in what the yes goes on to tell denies nothing.
        ("Yes. I talked with Ryan Park, who wants no part in the fight.", True),
        ("No. Ryan told me he is not sure.", False),
    ],
)
def test_claims_to_know_reads_yes_and_no(answer, claimed):
    assert claims_to_know(answer) is claimed


def test_knowing_a_person_with_a_memory_of_them_is_no_hallucination(klaus):
    claim = claim_of_person(agent=klaus, person="Isabella Rodriguez", answer="Yes, I do.")
    assert claim.backed and not claim.hallucinated


def test_knowing_a_person_never_met_nor_heard_of_is_one(klaus):
    claim = claim_of_person(agent=klaus, person="Sam Moore", answer="Yes, he is my neighbour.")
    assert claim.hallucinated
    honest = claim_of_person(agent=klaus, person="Sam Moore", answer="No, I don't know him.")
    assert not honest.hallucinated


def test_a_fact_with_no_memory_behind_it_is_a_hallucination(klaus):
    # The Ville bases' two named facts (data): the party, the candidacy.
    about_party, about_candidacy = (f.about for f in measures_resolve(klaus.simulation).facts)
    candidacy = claim_of_fact(
        agent=klaus, fact="candidacy", about=about_candidacy, answer="Yes, I heard he runs."
    )
    assert candidacy.hallucinated
    # Klaus's seed memories say nothing of the party either; Isabella's do.
    party = claim_of_fact(agent=klaus, fact="party", about=about_party, answer="Yes!")
    isabella = klaus.simulation.agents.get(name="Isabella Rodriguez")
    hosting = claim_of_fact(agent=isabella, fact="party", about=about_party, answer="Yes!")
    assert party.hallucinated
    assert hosting.backed and not hosting.hallucinated
