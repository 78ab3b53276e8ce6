"""Per-user model-call quotas: set in settings or the admin, answered 429 with Retry-After."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from agents.models import Interview
from llm.models import ModelCall, ModelQuota
from tests.api import error_of
from world.models import Simulation

from ..api import create

ISABELLA = "Isabella Rodriguez"
TOWN = "base_the_ville_isabella_maria_klaus"


@pytest.mark.django_db
def test_a_user_past_its_quota_gets_429_and_nothing_is_written(api: APIClient, user: User) -> None:
    town = create(api, config={"cognition": "paper"})
    made = ModelCall.objects.filter(simulation__owner=user).count()
    ModelQuota.objects.create(user=user, calls_per_day=made)  # used up by the seeding
    url = f"/api/simulations/{town['id']}/residents/{ISABELLA}/interview/"
    asked = api.post(url, {"persona": "a reporter", "question": "How are you?"}, format="json")
    assert asked.status_code == 429, asked.content
    assert int(asked["Retry-After"]) > 0
    assert "quota" in error_of(asked)["detail"]
    assert not Interview.objects.exists()
    assert ModelCall.objects.filter(simulation__owner=user).count() == made
    refused = api.post(
        "/api/simulations/", {"base": "base_the_ville_isabella_maria_klaus"}, format="json"
    )
    assert refused.status_code == 429
    assert Simulation.objects.filter(owner=user).count() == 1


@pytest.mark.django_db
def test_the_setting_applies_to_users_without_their_own(
    api: APIClient, user: User, settings: object
) -> None:
    town = create(api, config={"cognition": "paper"})
    made = ModelCall.objects.filter(simulation__owner=user).count()
    settings.SMALLVILLE_USER_DAILY_CALLS = made + 1  # type: ignore[attr-defined]
    url = f"/api/simulations/{town['id']}/residents/{ISABELLA}/interview/"
    body = {"persona": "a reporter", "question": "How are you?"}
    assert api.post(url, body, format="json").status_code == 201  # the last one allowed
    assert api.post(url, body, format="json").status_code == 429
    ModelQuota.objects.create(user=user, calls_per_day=None)  # the admin lifts it for this user
    assert api.post(url, body, format="json").status_code == 201


@pytest.mark.django_db(transaction=True)
def test_a_money_quota_spans_the_users_simulations_and_stops_a_run_with_its_reason(
    user: User,
) -> None:
    """Two simulations on a dear profile share one quota in money: spent on the first, the
    second's calls are refused, and its run stops with the reason."""
    from datetime import UTC, datetime

    from agents.services import simulation_create_from_base
    from agents.tasks.importance import IMPORTANCE
    from llm.errors import QuotaExceeded
    from llm.policy_server import PolicyServer
    from llm.port import llm_run
    from llm.profile_services import profile_save, simulation_models_set
    from llm.quotas import model_quota_check
    from runtime.engine import simulation_run_inline
    from world.models import SimulationStatus

    seven = datetime(2023, 2, 13, 7, tzinfo=UTC)
    first, second = (
        simulation_create_from_base(owner=user, base=TOWN, seed=n, start_time=seven) for n in (1, 2)
    )
    ModelQuota.objects.create(user=user, money_per_day=Decimal(30))
    with PolicyServer() as server:
        dear = profile_save(
            user=user,
            name="dear",
            base_url=server.base_url,
            model="dear",
            send_task=True,
            input_price=Decimal(100_000),
            output_price=Decimal(100_000),
        )  # 0.1 a token
        for simulation in (first, second):
            simulation_models_set(simulation=simulation, routes={"residents": dear.pk})
        agent = first.agents.order_by("name")[0]
        with pytest.raises(QuotaExceeded) as refused:
            for n in range(20):
                llm_run(task=IMPORTANCE, inputs=_inputs(n), agent=agent)
        spent = sum(c.cost for c in ModelCall.objects.filter(simulation__owner=user))
        assert Decimal(30) <= spent and 0 < server.answered < 20
        assert "money quota of 30" in str(refused.value) and refused.value.retry_after > 0
        answered = server.answered
        stopped = simulation_run_inline(simulation=second, steps=2)
    assert server.answered == answered  # nothing more was asked
    assert stopped.status == SimulationStatus.FAILED
    assert "QuotaExceeded: the model money quota of 30.0000 a day is used up" in (
        stopped.status_reason
    )
    ModelQuota.objects.filter(user=user).update(money_per_day=None)
    model_quota_check(owner_id=user.pk)  # lifted: no error


def _inputs(n: int) -> dict[str, str]:
    return {
        "agent_name": "Pell Marrowind",
        "agent_identity": "Name: Pell Marrowind\nAge: 33",
        "memory": f"Pell Marrowind counted {n} lanterns along the quay",
    }
