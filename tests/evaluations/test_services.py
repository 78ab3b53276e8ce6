"""Creating evaluations: bad requests write nothing; units count once; done is final."""

from __future__ import annotations

import pytest

from evaluations.models import Evaluation, EvaluationStatus, InterviewAnswer
from evaluations.services import (
    EvaluationError,
    answer_record,
    evaluation_create,
    evaluation_finish,
    evaluation_start,
)


@pytest.mark.parametrize(
    ("request_", "message"),
    [
        ({"kinds": ["interviews"], "conditions": ["no_dreams"]}, "unknown conditions"),
        ({"kinds": ["telepathy"]}, "unknown kinds"),
        ({"kinds": ["interviews"], "step": 31}, "beyond the simulation's step 30"),
    ],
)
def test_a_bad_request_says_why_and_writes_nothing(simulation, request_, message):
    with pytest.raises(EvaluationError, match=message):
        evaluation_create(simulation=simulation, **request_)
    assert not Evaluation.objects.exists()


def test_evaluations_are_numbered_per_simulation(simulation):
    first = evaluation_create(simulation=simulation, kinds=["diffusion"])
    second = evaluation_create(simulation=simulation, kinds=["relationships"], step=10)
    assert (first.number, first.step, second.number, second.step) == (1, 30, 2, 10)


def test_a_unit_recorded_twice_counts_once_and_done_is_final(simulation):
    evaluation = evaluation_create(simulation=simulation, kinds=["interviews"])
    assert evaluation_start(evaluation=evaluation, total=2)
    assert not evaluation_start(evaluation=evaluation, total=2)  # a second worker
    klaus = simulation.agents.get(name="Klaus Mueller")
    unit = {
        "evaluation": evaluation,
        "agent": klaus,
        "category": "self-knowledge",
        "question_number": 1,
        "question": "Give an introduction of yourself.",
        "condition": "full",
        "answer": "I am Klaus.",
        "memories": [3, 1],
    }
    assert answer_record(**unit)
    assert not answer_record(**{**unit, "answer": "a re-run's answer"})
    evaluation.refresh_from_db()
    assert evaluation.done == 1
    assert InterviewAnswer.objects.get().answer == "I am Klaus."

    assert evaluation_finish(evaluation=evaluation, result={"n": 1})
    assert not evaluation_finish(evaluation=evaluation, result={"n": 2})
    evaluation.refresh_from_db()
    assert (evaluation.status, evaluation.result) == (EvaluationStatus.DONE, {"n": 1})
