"""The evaluations API: the owner starts and reads them; a bad request is a 4xx, writing nothing."""

from __future__ import annotations

import pytest

from evaluations.models import Evaluation
from evaluations.runner import evaluation_run
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
        ({"kinds": ["diffusion"], "facts": ["it is on"]}, "name a fact as a clause"),
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


@pytest.mark.parametrize(
    ("answers", "says"),
    [
        ({"Klaus Mueller": "I study"}, "Expected a dictionary"),
        ({"Nobody Here": {"1": "hi"}}, "no resident named 'Nobody Here'"),
        ({"Klaus Mueller": {"0": "hi"}}, "'0' is not a question number 1-25"),
        ({"Klaus Mueller": {"1": 3}}, "Not a valid string"),
    ],
)
def test_bad_human_answers_are_a_400_with_a_message_and_write_nothing(
    api, simulation, answers, says
):
    body = {"kinds": ["interviews"], "human_answers": answers}
    response = api.post(_url(simulation), body, format="json")
    assert response.status_code == 400
    assert says in response.content.decode()
    assert not Evaluation.objects.exists()


def test_the_report_page_is_the_owners_with_tables_and_figures(api, other_api, simulation, client):
    body = {
        "kinds": ["interviews", "relationships", "hallucination", "diffusion", "coordination"],
        "conditions": ["full", "no_memory"],
        "human_answers": {"Maria Lopez": {"1": "Hi, I'm Maria, I study physics."}},
    }
    assert api.post(_url(simulation), body, format="json").status_code == 201
    report = _url(simulation, "1/report/")
    pending = api.get(report)
    assert pending.status_code == 409 and "is pending (0/0)" in pending.content.decode()

    evaluation_run(evaluation=Evaluation.objects.get(simulation=simulation))
    page = api.get(report, HTTP_ACCEPT="text/html")
    assert page.status_code == 200 and page["Content-Type"].startswith("text/html")
    html = page.content.decode()
    assert html.count('src="data:image/png;base64,') == 3  # TrueSkill, graph, diffusion
    for shown in ("TrueSkill mu", "Kruskal-Wallis H", "Mann-Whitney U", "Cohen&#x27;s d"):
        assert shown in html
    assert "human" in html and "Do you know" in html and "invited" in html
    assert "Did you hear that" in html and "Measured at step 30" in html
    assert api.get(_url(simulation, "1/")).json()["subject"] == simulation.pk
    assert other_api.get(report).status_code == 404
    assert client.get(report).status_code == 401
