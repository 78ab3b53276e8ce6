"""Named facts: asked "Did you hear that ...?", each yes checked against the memory stream,
and who heard from whom; a fact the rules cannot check is refused."""

from __future__ import annotations

import pytest

from agents.offline.interview import interview_answer
from agents.offline.key_words import key_words, states
from evaluations.hallucination import claims_to_know
from evaluations.models import Evaluation
from evaluations.named import measures_parse, measures_resolve
from evaluations.runner import evaluation_run
from evaluations.services import EvaluationError, evaluation_create
from memories.models import MemoryKind
from memories.services import MemoryDraft, memories_create

ISABELLA, KLAUS, MARIA = "Isabella Rodriguez", "Klaus Mueller", "Maria Lopez"
LIBRARY = "the library closes early on Friday"


def test_a_named_fact_is_stated_by_its_key_words():
    key = key_words(LIBRARY)
    assert key == {"libra", "clos", "early", "frida"}  # "closes", "closing", "close"
    assert states("Maria said the library will close early this Friday.", key)
    assert not states("The library is open late on Friday.", key)  # 2 of 4
    ((library,), ()) = measures_parse([f"  {LIBRARY}. "], [])
    assert library.text == LIBRARY and library.origin is None
    assert library.about("Maria said the library will close early this Friday.")


def test_an_evaluation_names_nothing_and_measures_its_bases_facts(simulation):
    """The Ville bases name the paper's two facts and its party as data; a simulation of
    one measures them unless the evaluation names its own."""
    named = measures_resolve(simulation)
    assert [f.origin for f in named.facts] == [ISABELLA, "Sam Moore"]
    assert [e.place for e in named.events] == ["Hobbs Cafe"]
    evaluation = evaluation_create(simulation=simulation, kinds=["diffusion"], facts=[LIBRARY])
    assert [f["text"] for f in evaluation.facts] == [LIBRARY]
    assert [e["host"] for e in evaluation.events] == [ISABELLA]  # events not named: the base's


@pytest.mark.parametrize(
    ("fact", "field", "message"),
    [
        ("it is on", "facts[0].text", "name a fact as a clause"),
        ("a b c", "facts[0].text", "name a fact as a clause"),
        ("x" * 201, "facts[0].text", "at most 200 characters"),
        ({"text": "the pier reopens", "colour": "red"}, "facts[0].colour", "Extra inputs"),
        ({"text": "the pier reopens", "words": [[]]}, "facts[0].words[0]", "at least 1 item"),
    ],
)
def test_a_fact_the_rules_cannot_check_is_refused_and_nothing_is_written(
    simulation, fact, field, message
):
    with pytest.raises(EvaluationError, match=message) as refused:
        evaluation_create(simulation=simulation, kinds=["diffusion"], facts=[fact])
    assert refused.value.field == field
    assert not Evaluation.objects.exists()


@pytest.mark.django_db  # it answers by the memories' embeddings
def test_the_offline_resident_says_yes_only_with_a_memory_that_states_it():
    asked = {"agent_name": KLAUS, "question": f"Did you hear that {LIBRARY}?"}
    yes = interview_answer({**asked, "memories": ["1. Maria said the library closes early."]})
    no = interview_answer({**asked, "memories": ["1. The library is quiet."]})
    assert claims_to_know(yes) and not claims_to_know(no)


def test_diffusion_by_interview_is_checked_against_memory(simulation):
    """Maria heard of the library from Isabella and Klaus from Maria; Isabella only thinks
    about a party. The offline residents answer by their memories, so every yes is backed;
    the chain is read from the memos' sources."""

    def memo(step: int, agent: str, text: str, teller: str | None) -> None:
        draft = MemoryDraft(
            agent=agent,
            kind=MemoryKind.THOUGHT,
            description=text,
            importance=6,
            source={"from": teller} if teller else {},
        )
        memories_create(simulation=simulation, drafts=[draft], step=step)

    memo(1, ISABELLA, "I noticed the library closes early on Friday now.", None)
    memo(5, MARIA, "Isabella Rodriguez told me the library closes early on Friday.", ISABELLA)
    memo(9, KLAUS, "Maria Lopez said that the library closes early on Friday.", MARIA)

    evaluation = evaluation_run(
        evaluation=evaluation_create(
            simulation=simulation, kinds=["diffusion", "hallucination"], facts=[LIBRARY]
        )
    )

    (library,) = evaluation.result["diffusion"]["facts"]
    assert library["question"] == f"Did you hear that {LIBRARY}?"
    assert library["source"] == ISABELLA  # the first to hold it
    asked = library["by_interview"]
    assert sorted(asked["knows"]) == [ISABELLA, KLAUS, MARIA]
    assert asked["knows_among_the_others"] == "2 of 2" and asked["hallucinated"] == []
    chain = library["by_memory"]["residents"]
    assert (chain[MARIA]["from"], chain[MARIA]["hop"]) == (ISABELLA, 1)
    assert (chain[KLAUS]["from"], chain[KLAUS]["hop"]) == (MARIA, 2)
    assert [p["holders"] for p in library["by_memory"]["over_time"]] == [1, 2]
    assert evaluation.result["hallucination"]["fact_claims"] == 3
    assert evaluation.result["hallucination"]["fact_hallucinated"] == 0
