"""An evaluation started through the API runs on a real Celery worker and finishes once."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.contrib.auth.models import User

from agents.services import simulation_create_from_base
from evaluations.models import Evaluation, EvaluationStatus
from tests.agents.workers import celery_worker, wait_for


@pytest.mark.django_db(transaction=True)
def test_a_posted_evaluation_is_run_by_a_worker(user: User, api) -> None:
    simulation = simulation_create_from_base(
        owner=user,
        base="base_the_ville_isabella_maria_klaus",
        seed=12,
        start_time=datetime(2023, 2, 13, 7, tzinfo=UTC),
        config={"cognition": "paper"},
    )
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
    assert (evaluation.done, evaluation.total) == (1, 1)
    measured = evaluation.result["simulations"][str(simulation.pk)]
    assert set(measured) == {"party_news", "candidacy_news", "party"}
    assert measured["party_news"]["source_holds_it"] is True
