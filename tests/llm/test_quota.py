"""Per-user model-call quotas: set in settings or the admin, answered 429 with Retry-After."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from agents.models import Interview
from llm.models import ModelCall, ModelQuota
from world.models import Simulation

from ..api import create

ISABELLA = "Isabella Rodriguez"


@pytest.mark.django_db
def test_a_user_past_its_quota_gets_429_and_nothing_is_written(api: APIClient, user: User) -> None:
    town = create(api, config={"cognition": "paper"})
    made = ModelCall.objects.filter(simulation__owner=user).count()
    ModelQuota.objects.create(user=user, calls_per_day=made)  # used up by the seeding
    url = f"/api/simulations/{town['id']}/residents/{ISABELLA}/interview/"
    asked = api.post(url, {"persona": "a reporter", "question": "How are you?"}, format="json")
    assert asked.status_code == 429, asked.content
    assert int(asked["Retry-After"]) > 0
    assert "quota" in asked.json()["error"]["message"]
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
