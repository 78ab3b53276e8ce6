"""The offline judge's rule: answers sharing more of the resident's memory words rank
higher, label order breaks ties; a model's ranking must list each label once."""

from __future__ import annotations

import random

from evaluations.judge import JUDGE, Ranking, judge_offline


def _inputs(answers: list[str]) -> dict[str, object]:
    labels = "ABCD"[: len(answers)]
    return {
        "agent_name": "Klaus Mueller",
        "summary": "Klaus Mueller is a student.",
        "memories": ["- Klaus Mueller is writing a research paper on gentrification"],
        "question": "What are you working on?",
        "answers": [f"{label}: {text}" for label, text in zip(labels, answers, strict=True)],
        "labels": ", ".join(labels),
    }


def test_the_answer_citing_memories_ranks_first_and_ties_keep_label_order():
    inputs = _inputs(
        [
            "I'm not sure; I don't remember anything about that.",
            "My research paper on gentrification.",
            "A paper.",
            "I don't remember.",
        ]
    )
    assert judge_offline(inputs, random.Random(1)).ranking == ["B", "C", "A", "D"]


def test_a_ranking_that_misses_or_repeats_a_label_is_a_problem():
    inputs = _inputs(["one", "two"])
    assert JUDGE.problem_with(inputs, Ranking(ranking=["B", "A"])) == ""
    assert "exactly once" in JUDGE.problem_with(inputs, Ranking(ranking=["A", "A"]))


def test_a_ranking_one_step_short_of_whole_is_mended_and_others_are_not():
    four = _inputs(["one", "two", "three", "four"])

    def mended(*ranking: str) -> list[str]:
        return list(
            JUDGE.repaired(four, Ranking.model_validate({"ranking": list(ranking)})).ranking
        )

    assert mended("B", "C", "D") == ["B", "C", "D", "A"]  # the one left out goes last
    assert mended("A", "B", "A", "C") == ["A", "B", "C", "D"]  # a repeat dropped
    assert mended("C", "E", "A", "B", "D") == ["C", "A", "B", "D"]  # not this question's
    for far_off in (["A", "A", "A", "A"], ["C", "D"]):
        assert JUDGE.problem_with(four, Ranking.model_validate({"ranking": mended(*far_off)}))
    two = _inputs(["one", "two"])
    assert JUDGE.repaired(two, Ranking(ranking=["A", "A"])).ranking == ["A", "A"]
