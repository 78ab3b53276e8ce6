"""The interviews and the judge through the `openai` backend against the fake OpenAI
server: every reply validated (a bad ranking is re-asked), every call in the ledger."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from django.contrib.auth.models import User

from evaluations.judge import JUDGE, Ranking
from evaluations.models import InterviewAnswer
from evaluations.runner import evaluation_run
from evaluations.services import evaluation_create
from llm.dialects import strict_schema
from llm.models import ModelCall
from llm.tasks import output_token_limit
from memories.models import MemoryKind
from memories.services import MemoryDraft, memories_create
from tests.factories import three_residents
from tests.llm.conftest import openai_llm  # noqa: F401 (the fixture)
from tests.model_server import ModelServer, ok

# The Ville bases' first named fact (agents/bases/data/reference/the_ville_measures.json).
PARTY = "Isabella Rodriguez is throwing a Valentine's Day party at Hobbs Cafe"

ANSWERS = 3 * 25 * 2  # three residents, 25 questions, two conditions


def test_the_judge_ranks_through_the_openai_backend(
    user: User,
    settings: Any,
    openai_llm: ModelServer,  # noqa: F811
) -> None:
    settings.SMALLVILLE_LLM_BACKEND = "offline"  # the residents' seeds are rated offline
    simulation = three_residents(user, 31)
    settings.SMALLVILLE_LLM_BACKEND = "openai"
    before = ModelCall.objects.filter(simulation=simulation).count()  # the seeds' ratings
    openai_llm.push(*(ok({"answer": f"Answer number {i}."}) for i in range(ANSWERS)))
    # The first question's replies are not a ranking of both: re-asked, then the fail-safe.
    openai_llm.push(*(ok({"ranking": ["A", "A"]}) for _ in range(3)))
    openai_llm.push(ok({"ranking": ["B", "B"]}))  # the second's: re-asked once
    openai_llm.push(*(ok({"ranking": ["B", "A"]}) for _ in range(74)))
    evaluation = evaluation_run(
        evaluation=evaluation_create(
            simulation=simulation, kinds=["interviews"], conditions=["full", "no_memory"]
        )
    )

    calls = ModelCall.objects.filter(simulation=simulation).order_by("id")[before:]
    assert Counter(c.task for c in calls) == {"interview": ANSWERS, "believability_judge": 75}
    judged = [c for c in calls if c.task == "believability_judge"]
    assert [c.fallback for c in calls] == [c == judged[0] for c in calls]
    assert all(c.backend == "openai" and (c.error == "" or c == judged[0]) for c in calls)
    assert [judged[0].attempts, judged[1].attempts, judged[2].attempts] == [3, 2, 1]
    assert "exactly once" in judged[1].attempt_log[0]["error"]
    requests = [r["body"] for r in openai_llm.chat_requests()[ANSWERS:]]
    assert len(requests) == 78
    assert all(r["max_tokens"] == output_token_limit(JUDGE) for r in requests)
    sent = requests[0]["response_format"]["json_schema"]  # in strict mode's subset
    assert sent["strict"] is True
    assert (
        strict_schema(Ranking.model_json_schema())["properties"]["ranking"]
        == sent["schema"]["properties"]["ranking"]
    )
    # The model's "B, A" is stored: the answer labelled B is ranked first, for every question
    # but the first, whose ranking is the fail-safe rule's and marked so.
    fell_back = InterviewAnswer.objects.filter(evaluation=evaluation, judge_fallback=True)
    assert fell_back.count() == 2
    assert len({(a.agent_id, a.question_number) for a in fell_back}) == 1
    for call in judged[1:]:
        labelled = dict(re.findall(r"^([AB]): (Answer number \d+\.)$", call.prompt, re.M))
        first = InterviewAnswer.objects.get(evaluation=evaluation, answer=labelled["B"])
        second = InterviewAnswer.objects.get(evaluation=evaluation, answer=labelled["A"])
        assert (first.judged_rank, second.judged_rank) == (1, 2)
    assert evaluation.result["interviews"]["judge_backend"] == "openai"
    interviews = evaluation.result["interviews"]
    assert (interviews["judged_questions"], interviews["judge_fallbacks"]) == (75, 1)
    assert "1 of 75 questions took the judge's fail-safe answer" in interviews["judge_note"]
    assert {r["condition"] for r in interviews["trueskill_model_judged_only"]} == {
        "full",
        "no_memory",
    }


def test_facts_asked_through_the_openai_backend_are_checked_against_memory(
    user: User,
    settings: Any,
    openai_llm: ModelServer,  # noqa: F811
) -> None:
    """A model that says yes to everything: a yes with a memory stating the fact is knowing
    it, a yes with none a hallucination (the three residents never heard of Sam Moore)."""
    settings.SMALLVILLE_LLM_BACKEND = "offline"
    simulation = three_residents(user, 32)
    memories_create(
        simulation=simulation,
        drafts=[
            MemoryDraft(
                agent="Maria Lopez",
                kind=MemoryKind.THOUGHT,
                description=f"{PARTY}, Isabella Rodriguez told me.",
                importance=7,
                source={"from": "Isabella Rodriguez"},
            )
        ],
        step=0,
    )
    settings.SMALLVILLE_LLM_BACKEND = "openai"
    settings.SMALLVILLE_LLM_PRIORITY = True
    before = ModelCall.objects.filter(simulation=simulation).count()
    openai_llm.push(*(ok({"answer": "No, I don't know them."}) for _ in range(12)))
    openai_llm.push(ok({"wrong": "shape"}))  # invalid: re-asked
    openai_llm.push(*(ok({"answer": "Yes, I heard that."}) for _ in range(6)))
    evaluation = evaluation_run(
        evaluation=evaluation_create(simulation=simulation, kinds=["diffusion", "hallucination"])
    )

    calls = ModelCall.objects.filter(simulation=simulation).order_by("id")[before:]
    assert Counter(c.task for c in calls) == {"interview": 18}
    assert all(c.backend == "openai" and c.error == "" and not c.fallback for c in calls)
    assert sum(c.attempts for c in calls) == 19
    # Background work: a server ordering its queue by priority serves the town first.
    assert {r["body"]["priority"] for r in openai_llm.chat_requests()} == {1}
    party, candidacy = evaluation.result["diffusion"]["facts"]
    assert "Maria Lopez" in party["by_interview"]["knows"]
    assert "Klaus Mueller" in [h["resident"] for h in party["by_interview"]["hallucinated"]]
    assert candidacy["by_interview"]["knows"] == []
    assert len(candidacy["by_interview"]["hallucinated"]) == 3
    hallucination = evaluation.result["hallucination"]
    assert hallucination["fact_hallucinated"] >= 4 and hallucination["hallucinated"] == 0
