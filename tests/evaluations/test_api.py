"""The evaluations API: the owner starts and reads them; a bad request is a 4xx, writing nothing."""

from __future__ import annotations

import pytest

from evaluations.models import Evaluation
from world.models import Simulation


def _url(simulation: Simulation, tail: str = "") -> str:
    return f"/api/simulations/{simulation.pk}/evaluations/{tail}"


def test_the_owner_starts_lists_and_reads_an_evaluation(api, simulation):
    made = api.post(_url(simulation), {"kinds": ["interviews", "diffusion"]}, format="json")
    assert made.status_code == 201, made.content
    assert made.json()["number"] == 1
    assert made.json()["conditions"] == [
        "full",
        "no_reflection",
        "no_reflection_no_planning",
        "no_memory",
    ]
    assert [e["number"] for e in api.get(_url(simulation)).json()] == [1]
    one = api.get(_url(simulation, "1/"))
    assert one.status_code == 200
    assert (one.json()["step"], one.json()["status"]) == (30, "pending")
    assert api.get(_url(simulation, "2/")).status_code == 404


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({"kinds": ["interviews"], "conditions": ["no_dreams"]}, "no_dreams"),
        ({"kinds": ["interviews"], "step": 31}, "beyond the simulation's step 30"),
        ({"kinds": []}, "kinds"),
    ],
)
def test_a_bad_request_is_a_400_with_a_message_and_writes_nothing(api, simulation, body, says):
    response = api.post(_url(simulation), body, format="json")
    assert response.status_code == 400
    assert says in response.content.decode()
    assert not Evaluation.objects.exists()


def test_another_users_simulation_is_a_404_and_writes_nothing(other_api, simulation):
    response = other_api.post(_url(simulation), {"kinds": ["diffusion"]}, format="json")
    assert response.status_code == 404
    assert other_api.get(_url(simulation)).status_code == 404
    assert not Evaluation.objects.exists()
