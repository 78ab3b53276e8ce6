"""Deleting a simulation over REST: its log, residents, memories and ledger go in one
transaction, its forks stay; refused while it runs or while it is being evaluated."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from evaluations.models import Evaluation
from llm.models import ModelCall
from memories.models import Memory
from world.models import Agent, Event, Simulation, SimulationStatus

from . import advance, create, error_of

pytestmark = pytest.mark.django_db


def _rows(simulation_id: int) -> dict[str, int]:
    return {
        "events": Event.objects.filter(simulation_id=simulation_id).count(),
        "agents": Agent.objects.filter(simulation_id=simulation_id).count(),
        "memories": Memory.objects.filter(simulation_id=simulation_id).count(),
        "calls": ModelCall.objects.filter(simulation_id=simulation_id).count(),
    }


def test_a_deleted_simulation_takes_its_rows_and_leaves_its_fork(api: APIClient) -> None:
    made = create(api)
    advance(made["id"], 4)
    assert all(_rows(made["id"]).values()), _rows(made["id"])  # seeded, rated, stepped
    fork = api.post(f"/api/simulations/{made['id']}/fork/", {"step": 2}, format="json").json()
    kept = _rows(fork["id"])

    deleted = api.delete(f"/api/simulations/{made['id']}/")
    assert deleted.status_code == 204, deleted.content
    assert _rows(made["id"]) == {"events": 0, "agents": 0, "memories": 0, "calls": 0}
    assert api.get(f"/api/simulations/{made['id']}/").status_code == 404
    assert api.delete(f"/api/simulations/{made['id']}/").status_code == 404
    # The fork is a simulation of its own: whole, its parent now unknown.
    assert _rows(fork["id"]) == kept
    assert api.get(f"/api/simulations/{fork['id']}/").json()["parent"] is None


@pytest.mark.parametrize("status", [SimulationStatus.RUNNING])
def test_a_running_simulation_is_not_deleted(api: APIClient, status: str) -> None:
    made = create(api)
    Simulation.objects.filter(pk=made["id"]).update(status=status)
    before = _rows(made["id"])
    refused = api.delete(f"/api/simulations/{made['id']}/")
    assert refused.status_code == 409
    assert "pause it first" in error_of(refused)["detail"]
    assert _rows(made["id"]) == before


def test_a_simulation_under_evaluation_or_measured_is_not_deleted(api: APIClient) -> None:
    made = create(api)
    measured = create(api)
    evaluation = Evaluation.objects.create(
        simulation_id=made["id"], number=1, step=0, kinds=["diffusion"]
    )
    refused = api.delete(f"/api/simulations/{made['id']}/")
    assert refused.status_code == 409 and "under way" in error_of(refused)["detail"]
    # Done, the evaluation goes with its simulation; but what it measured (another
    # simulation, as a fork is) stays while the evaluation does.
    Evaluation.objects.filter(pk=evaluation.pk).update(status="done", subject_id=measured["id"])
    refused = api.delete(f"/api/simulations/{measured['id']}/")
    assert refused.status_code == 409 and "measured" in error_of(refused)["detail"]
    assert Simulation.objects.filter(pk=measured["id"]).exists()
    assert api.delete(f"/api/simulations/{made['id']}/").status_code == 204
    assert not Evaluation.objects.filter(pk=evaluation.pk).exists()
    assert api.delete(f"/api/simulations/{measured['id']}/").status_code == 204
