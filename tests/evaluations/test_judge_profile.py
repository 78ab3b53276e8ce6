"""An evaluation names its judge's model profile: the believability judge's calls go to
that profile's server, at its prices, while the interviews stay on the simulation's
routes; a profile the user may not use is a 400 naming `judge_profile`."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from evaluations.models import Evaluation
from evaluations.runner import evaluation_run
from llm.models import ModelCall
from llm.policy_server import PolicyServer
from tests.api import fields_of
from tests.factories import three_residents

pytestmark = pytest.mark.django_db(transaction=True)


def _profile(api: APIClient, server: PolicyServer, name: str) -> int:
    made = api.post(
        "/api/profiles/",
        {
            "name": name,
            "base_url": server.base_url,
            "model": f"model-{name}",
            "send_task": True,
            "input_price": "2",
            "output_price": "8",
        },
        format="json",
    )
    assert made.status_code == 201, made.json()
    return int(made.json()["id"])


def test_the_judge_runs_on_the_evaluations_profile(
    user: User, api: APIClient, settings: Any
) -> None:
    settings.SMALLVILLE_LLM_BACKEND = "offline"
    simulation = three_residents(user, 41)
    with PolicyServer() as judge_server:
        judge = _profile(api, judge_server, "judge")
        made = api.post(
            f"/api/simulations/{simulation.pk}/evaluations/",
            {"kinds": ["interviews"], "conditions": ["full", "no_memory"], "judge_profile": judge},
            format="json",
        )
        assert made.status_code == 201, made.json()
        assert made.json()["judge_profile"] == judge
        evaluation = Evaluation.objects.get(simulation=simulation, number=made.json()["number"])
        evaluation = evaluation_run(evaluation=evaluation)
    judged = ModelCall.objects.filter(task="believability_judge")
    interviews = ModelCall.objects.filter(task="interview")
    assert judged.count() == judge_server.answered > 0
    assert set(judged.values_list("profile_id", "model")) == {(judge, "model-judge")}
    assert all(call.cost > 0 for call in judged)
    # The residents' answers stay on the simulation's routes: here the settings, offline.
    assert interviews.exists()
    assert not interviews.filter(profile__isnull=False).exists()
    assert set(interviews.values_list("backend", flat=True)) == {"offline"}
    result = evaluation.result["interviews"]
    assert (result["judge_backend"], result["judge_model"]) == ("openai", "model-judge")


def test_a_judge_profile_the_user_may_not_use_is_a_400_and_creates_nothing(
    user: User, api: APIClient, other_api: APIClient
) -> None:
    simulation = three_residents(user, 42)
    with PolicyServer() as server:
        theirs = _profile(other_api, server, "theirs")
    for bad in (theirs, 10**9, "judge", 0):
        answer = api.post(
            f"/api/simulations/{simulation.pk}/evaluations/",
            {"kinds": ["interviews"], "judge_profile": bad},
            format="json",
        )
        assert answer.status_code == 400, (bad, answer.json())
        assert "judge_profile" in fields_of(answer), answer.json()
    assert not Evaluation.objects.filter(simulation=simulation).exists()
