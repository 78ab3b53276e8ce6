"""Plans and conversations: anonymous gets 401, another user's simulation 404."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tests.api import error_of

from . import stage

PATHS = [
    "residents/Isabella Rodriguez/plan/",
    "residents/Isabella Rodriguez/plan/?date=2023-02-13",
    "conversations/",
    "conversations/1/",
]


@pytest.mark.django_db
def test_anonymous_gets_401(api: APIClient) -> None:
    simulation = stage(api)
    for path in PATHS:
        response = APIClient().get(f"/api/simulations/{simulation.pk}/{path}")
        assert response.status_code == 401, path
        assert error_of(response)["code"] == "not_authenticated"


@pytest.mark.django_db
def test_another_users_simulation_is_not_found(api: APIClient, other_api: APIClient) -> None:
    simulation = stage(api)
    for path in PATHS:
        url = f"/api/simulations/{simulation.pk}/{path}"
        assert api.get(url).status_code == 200, path
        response = other_api.get(url)
        assert response.status_code == 404, path
        assert error_of(response)["code"] == "not_found"
