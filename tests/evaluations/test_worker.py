"""An evaluation started through the API runs on a real Celery worker and finishes once."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from evaluations.models import Evaluation, EvaluationStatus, InterviewAnswer
from evaluations.services import evaluation_create
from evaluations.tasks import evaluation_run_task
from llm.models import ModelCall
from tests.factories import three_residents
from tests.runtime.workers import celery_worker, wait_for


@pytest.mark.django_db(transaction=True)
def test_a_posted_evaluation_is_run_by_a_worker(user: User, api) -> None:
    simulation = three_residents(user, 12)
    with celery_worker():
        made = api.post(
            f"/api/simulations/{simulation.pk}/evaluations/",
            {"kinds": ["diffusion", "coordination"]},
            format="json",
        )
        assert made.status_code == 201

        def done() -> bool:
            return Evaluation.objects.get(simulation=simulation).status == EvaluationStatus.DONE

        wait_for(done, 120, "the worker to finish the evaluation")
    evaluation = Evaluation.objects.get(simulation=simulation)
    # 3 residents x 2 facts asked, then the one simulation measured.
    assert (evaluation.done, evaluation.total) == (7, 7)
    measured = evaluation.result["simulations"][str(simulation.pk)]
    assert set(measured) == {"news", "events"}  # the base's two facts and its event
    assert measured["news"][0]["source_holds_it"] is True  # Isabella holds her party
    assert [e["host"] for e in measured["events"]] == ["Isabella Rodriguez"]


@pytest.mark.django_db(transaction=True)
def test_an_interview_job_survives_a_killed_worker_without_double_counting(user: User) -> None:
    simulation = three_residents(user, 13)
    evaluation = evaluation_create(simulation=simulation, kinds=["interviews"])

    def reload() -> Evaluation:
        return Evaluation.objects.get(pk=evaluation.pk)

    with celery_worker() as worker:
        evaluation_run_task.delay(evaluation.pk)
        wait_for(lambda: reload().done >= 40, 120, "40 answers")
        worker.kill()
        killed = reload()
        assert killed.status == EvaluationStatus.RUNNING and killed.done < 300
        # The progress counts the rows written, each once (still in the interview phase).
        assert killed.done == InterviewAnswer.objects.filter(evaluation=evaluation).count()
        worker.start()  # the task comes back to the new worker, which carries on
        wait_for(lambda: reload().status == EvaluationStatus.DONE, 240, "the evaluation")
    done = reload()
    assert (done.done, done.total) == (3 * 25 * 4 + 3 * 25 + 1,) * 2
    answers = InterviewAnswer.objects.filter(evaluation=evaluation)
    assert answers.count() == 300 and not answers.filter(judged_rank__isnull=True).exists()
    assert done.result["interviews"]["answers"] == 300
    # At most the one call in flight when the worker died is asked again.
    calls = ModelCall.objects.filter(simulation=simulation, task="interview").count()
    assert 300 <= calls <= 301
