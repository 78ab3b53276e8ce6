"""Run control over HTTP: run, conflicts, pause, resume and progress."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from world.models import Simulation

from . import create, error_of


@pytest.mark.django_db
@pytest.mark.parametrize(
    "body",
    [
        {},
        {"steps": 0},
        {"steps": "10"},
        {"steps": 5, "until": "2023-02-13T01:00:00Z"},
        {"until": "2023-02-12T00:00:00Z"},
        {"until": "not a time"},
        {"steps": 5, "speed": "fast"},
    ],
)
def test_bad_run_requests_get_400_and_change_nothing(api: APIClient, body: dict[str, Any]) -> None:
    simulation = create(api)
    response = api.post(f"/api/simulations/{simulation['id']}/run/", body, format="json")
    assert response.status_code == 400, response.content
    assert error_of(response)["detail"]
    assert Simulation.objects.get(pk=simulation["id"]).status == "idle"


@pytest.mark.django_db
def test_run_pause_resume_and_progress(api: APIClient) -> None:
    simulation = create(api)
    base = f"/api/simulations/{simulation['id']}"
    started = api.post(f"{base}/run/", {"until": "2023-02-13T01:00:00Z"}, format="json")
    assert started.status_code == 200, started.content
    assert started.json()["status"] == "running"
    assert started.json()["target_step"] == 360

    again = api.post(f"{base}/run/", {"steps": 5}, format="json")
    assert again.status_code == 409
    assert "already running" in error_of(again)["detail"]

    assert api.post(f"{base}/pause/", format="json").json()["status"] == "paused"
    assert api.post(f"{base}/pause/", format="json").status_code == 409
    resumed = api.post(f"{base}/resume/", format="json")
    assert resumed.status_code == 200 and resumed.json()["status"] == "running"

    progress = api.get(f"{base}/progress/").json()
    assert progress["step"] == 0 and progress["target_step"] == 360
    assert progress["sim_time"].startswith("2023-02-13T00:00:00")
