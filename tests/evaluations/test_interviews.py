"""The paper's interviews: 25 questions per resident under each condition, answered through
the interview task, judged and ranked; the relationship interviews and their density."""

from __future__ import annotations

from collections import Counter

import pytest
from django.contrib.auth.models import User

from evaluations.models import Evaluation, EvaluationStatus, InterviewAnswer
from evaluations.named import measures_resolve
from evaluations.questions import CATEGORIES, NEWS_QUESTIONS, interview_questions
from evaluations.runner import evaluation_run
from evaluations.services import EvaluationError, evaluation_create
from llm.models import ModelCall
from memories.models import Memory
from tests.factories import three_residents
from world.models import Event, Simulation

ISABELLA, KLAUS, MARIA = "Isabella Rodriguez", "Klaus Mueller", "Maria Lopez"
CONDITIONS = ["full", "no_reflection", "no_reflection_no_planning", "no_memory"]


@pytest.fixture
def simulation(user: User) -> Simulation:
    return three_residents(user, 21)


def test_the_questions_are_the_papers_five_categories_written_per_resident(simulation):
    klaus = simulation.agents.get(name=KLAUS)
    news = measures_resolve(simulation).questions  # the Ville bases': the paper's two
    questions = interview_questions(agent=klaus, residents=[ISABELLA, KLAUS, MARIA], news=news)

    assert [q.number for q in questions] == list(range(1, 26))
    assert Counter(q.category for q in questions) == {c: 5 for c in CATEGORIES}
    texts = [q.text for q in questions]
    assert texts[0] == "Give an introduction of yourself."
    assert "Your breakfast is burning! What would you do?" in texts
    assert "Who is running for the election?" in texts
    generic = [q.text for q in interview_questions(agent=klaus, residents=[KLAUS, MARIA])]
    assert [generic[7], generic[8]] == list(NEWS_QUESTIONS)  # a base naming none
    # Klaus's identity names Maria: she is the first person he is asked about.
    assert texts[5] == f"Who is {MARIA}?" and f"Who is {ISABELLA}?" in texts
    assert all(KLAUS not in t for t in texts)


def test_every_resident_answers_25_questions_under_each_condition_and_is_ranked(simulation):
    events = Event.objects.filter(simulation=simulation).count()
    evaluation = evaluation_run(
        evaluation=evaluation_create(simulation=simulation, kinds=["interviews"])
    )

    assert evaluation.status == EvaluationStatus.DONE
    assert (evaluation.done, evaluation.total) == (3 * 25 * 4 + 3 * 25 + 1,) * 2
    answers = InterviewAnswer.objects.filter(evaluation=evaluation)
    per_resident = Counter(answers.values_list("agent__name", flat=True))
    assert per_resident == {ISABELLA: 100, KLAUS: 100, MARIA: 100}
    assert Counter(answers.values_list("condition", flat=True)) == {c: 75 for c in CONDITIONS}
    # No memory recalls nothing; the full architecture recalls its memories.
    assert not any(answers.filter(condition="no_memory").values_list("memories", flat=True))
    assert all(answers.filter(condition="full").values_list("memories", flat=True))
    # Every question's four answers are ranked 1..4 by the judge.
    ranks: dict[tuple[int, int], list[int | None]] = {}
    for agent, number, rank in answers.values_list("agent", "question_number", "judged_rank"):
        ranks.setdefault((agent, number), []).append(rank)
    assert len(ranks) == 75 and all(sorted(r) == [1, 2, 3, 4] for r in ranks.values())  # type: ignore[type-var]
    # Every answer and every ranking is a call in the ledger; nothing happened in the town.
    calls = Counter(ModelCall.objects.filter(simulation=simulation).values_list("task", flat=True))
    assert (calls["interview"], calls["believability_judge"]) == (300, 75)
    assert Event.objects.filter(simulation=simulation).count() == events

    interviews = evaluation.result["interviews"]
    assert (interviews["answers"], interviews["judged_questions"]) == (300, 75)
    mu = {r["condition"]: r["mu"] for r in interviews["trueskill"]}
    assert set(mu) == set(CONDITIONS)
    # The offline judge prefers answers citing the resident's memories: no memory is last.
    assert min(mu, key=mu.__getitem__) == "no_memory"
    statistics = interviews["statistics"]
    assert statistics["kruskal_p"] < 0.05 and statistics["cohens_d_full_vs_no_memory"] > 0
    assert len(statistics["pairwise"]) == 6
    assert "not a judgement" in interviews["judge_note"]


def test_human_answers_join_as_a_condition_and_are_ranked_with_the_others(simulation):
    evaluation = evaluation_create(
        simulation=simulation,
        kinds=["interviews"],
        conditions=["full", "no_memory"],
        human_answers={KLAUS: {"1": "I'm Klaus, I study gentrification."}},
    )
    assert evaluation.conditions == ["full", "no_memory", "human"]
    evaluation_run(evaluation=evaluation)

    human = InterviewAnswer.objects.get(evaluation=evaluation, condition="human")
    assert (human.agent.name, human.question_number) == (KLAUS, 1)
    assert human.question == "Give an introduction of yourself."
    assert human.judged_rank in (1, 2, 3)
    assert InterviewAnswer.objects.filter(evaluation=evaluation).count() == 3 * 25 * 2 + 1


@pytest.mark.parametrize(
    ("answers", "says"),
    [
        ({"Nobody Here": {"1": "hi"}}, "no resident named 'Nobody Here'"),
        ({KLAUS: {"26": "hi"}}, "'26' is not a question number 1-25"),
        ({KLAUS: {"1": ""}}, "a non-empty text"),
        ({KLAUS: "hi"}, "human_answers[" + repr(KLAUS) + "]"),
        ({}, "at least one resident"),
    ],
)
def test_bad_human_answers_are_refused_writing_nothing(simulation, answers, says):
    with pytest.raises(EvaluationError) as refused:
        evaluation_create(simulation=simulation, kinds=["interviews"], human_answers=answers)
    assert says in str(refused.value)
    assert not Evaluation.objects.exists() and not InterviewAnswer.objects.exists()


def test_relationships_from_do_you_know_and_hallucination(simulation):
    # Klaus forgets Maria: his memories that name her are gone, so a yes is unfounded.
    Memory.objects.filter(agent__name=KLAUS, description__contains=MARIA).delete()
    evaluation = evaluation_run(
        evaluation=evaluation_create(
            simulation=simulation, kinds=["relationships", "hallucination"]
        )
    )

    asked = InterviewAnswer.objects.filter(evaluation=evaluation, category="relationship_now")
    assert asked.count() == 6
    klaus = asked.get(agent__name=KLAUS, question=f"Do you know {MARIA}?")
    assert klaus.answer.startswith("No")  # the offline policy says no without a memory
    relationships = evaluation.result["relationships"]
    assert relationships["now"]["claims"] == 5
    # Maria still names Klaus in her memories and says yes: the pair is connected.
    assert relationships["now"]["pairs"] == 3
    assert relationships["start"]["possible_pairs"] == 3
    assert evaluation.result["hallucination"]["hallucinated"] == 0


def test_a_spent_budget_fails_the_evaluation_saying_why_and_keeps_the_answers(simulation):
    used = ModelCall.objects.filter(simulation=simulation).count()  # the seeds' ratings
    Simulation.objects.filter(pk=simulation.pk).update(budget_calls=used + 10)
    simulation.refresh_from_db()
    evaluation = evaluation_run(
        evaluation=evaluation_create(simulation=simulation, kinds=["interviews"])
    )

    assert evaluation.status == EvaluationStatus.FAILED
    assert "BudgetExhausted: model budget exhausted" in evaluation.result["error"]
    assert evaluation.done == 10 == InterviewAnswer.objects.filter(evaluation=evaluation).count()
