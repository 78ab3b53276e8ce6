"""Authentication and ownership: anonymous gets 401 everywhere; others' simulations 404."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from rest_framework.test import APIClient

from world.models import Town

from . import create, error_of

# (method, url) of every API endpoint; ids need not exist, authentication comes first.
ENDPOINTS = [
    ("get", "/api/towns/"),
    ("post", "/api/towns/"),
    ("get", "/api/towns/1/"),
    ("delete", "/api/towns/1/"),
    ("get", "/api/towns/1/path/?from_x=1&from_y=1&to_x=2&to_y=2"),
    ("get", "/api/towns/1/locations/"),
    ("get", "/api/towns/1/locations/1/"),
    ("get", "/api/simulations/"),
    ("post", "/api/simulations/"),
    ("get", "/api/simulations/1/"),
    ("delete", "/api/simulations/1/"),
    ("post", "/api/simulations/1/fork/"),
    ("get", "/api/simulations/1/residents/"),
    ("get", "/api/simulations/1/residents/Isabella Rodriguez/"),
    ("get", "/api/simulations/1/events/"),
    ("post", "/api/simulations/1/run/"),
    ("post", "/api/simulations/1/pause/"),
    ("post", "/api/simulations/1/resume/"),
    ("get", "/api/simulations/1/progress/"),
    ("get", "/api/simulations/1/model-calls/"),
    ("get", "/api/simulations/1/model-calls/summary/"),
    ("get", "/api/simulations/1/estimate/?hours=1"),
    ("get", "/api/simulations/1/residents/Isabella Rodriguez/memories/"),
    ("get", "/api/simulations/1/residents/Isabella Rodriguez/memories/1/"),
    ("get", "/api/simulations/1/residents/Isabella Rodriguez/memories/1/evidence/"),
    ("post", "/api/simulations/1/residents/Isabella Rodriguez/retrieve/"),
    ("get", "/api/simulations/1/residents/Isabella Rodriguez/plan/"),
    ("get", "/api/simulations/1/conversations/"),
    ("get", "/api/simulations/1/conversations/1/"),
    ("post", "/api/simulations/1/residents/"),
    ("post", "/api/simulations/1/residents/Isabella Rodriguez/interview/"),
    ("get", "/api/simulations/1/residents/Isabella Rodriguez/interviews/"),
    ("post", "/api/simulations/1/residents/Isabella Rodriguez/whisper/"),
    ("post", "/api/simulations/1/residents/Isabella Rodriguez/control/"),
    ("post", "/api/simulations/1/residents/Isabella Rodriguez/go/"),
    ("post", "/api/simulations/1/residents/Isabella Rodriguez/say/"),
    ("get", "/api/simulations/1/objects/"),
    ("put", "/api/simulations/1/objects/"),
    ("get", "/api/towns/1/map/"),
    ("get", "/api/simulations/1/replay/"),
    ("get", "/api/experiments/"),
    ("post", "/api/experiments/"),
    ("get", "/api/experiments/1/"),
    ("delete", "/api/experiments/1/"),
    ("post", "/api/experiments/1/start/"),
    ("post", "/api/experiments/1/pause/"),
    ("post", "/api/experiments/1/resume/"),
    ("post", "/api/experiments/1/cancel/"),
    ("get", "/api/experiments/1/results/"),
    ("get", "/api/experiments/1/results/csv/"),
    ("get", "/api/experiments/1/report/"),
    ("get", "/api/simulations/1/facts/"),
    ("get", "/api/simulations/1/facts/holders/?fact=the library closes early on Friday"),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("method", "url"), ENDPOINTS)
def test_anonymous_gets_401(method: str, url: str) -> None:
    response = getattr(APIClient(), method)(url)
    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Token")
    assert error_of(response)["code"] == "not_authenticated"


@pytest.mark.django_db
@pytest.mark.parametrize(("method", "url"), ENDPOINTS)
def test_bad_token_gets_401(method: str, url: str) -> None:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    response = getattr(client, method)(url)
    assert response.status_code == 401
    assert error_of(response)["code"] == "authentication_failed"


@pytest.mark.django_db
def test_session_login_works(user: User, ville: Town) -> None:
    client = APIClient()
    client.force_login(user)
    assert client.get("/api/towns/").status_code == 200


@pytest.mark.django_db
def test_another_users_simulation_is_not_found(api: APIClient, other_api: APIClient) -> None:
    theirs = create(other_api)
    mine = create(api)
    base = f"/api/simulations/{theirs['id']}"
    for response in (
        api.get(f"{base}/"),
        api.get(f"{base}/residents/"),
        api.get(f"{base}/residents/Isabella Rodriguez/"),
        api.get(f"{base}/events/"),
        api.post(f"{base}/fork/", {}, format="json"),
        api.post(f"{base}/run/", {"steps": 1}, format="json"),
        api.post(f"{base}/pause/", {}, format="json"),
        api.post(f"{base}/resume/", {}, format="json"),
        api.get(f"{base}/progress/"),
        api.get(f"{base}/model-calls/"),
        api.get(f"{base}/model-calls/summary/"),
        api.get(f"{base}/estimate/", {"hours": 1}),
        api.get(f"{base}/residents/Isabella Rodriguez/memories/"),
        api.get(f"{base}/residents/Isabella Rodriguez/memories/1/"),
        api.get(f"{base}/residents/Isabella Rodriguez/memories/1/evidence/"),
        api.post(f"{base}/residents/Isabella Rodriguez/retrieve/", {"query": "x"}, format="json"),
        api.get(f"{base}/residents/Isabella Rodriguez/plan/"),
        api.get(f"{base}/conversations/"),
        api.get(f"{base}/conversations/1/"),
        api.post(f"{base}/residents/", {"name": "Ada", "tile": [72, 14]}, format="json"),
        api.post(
            f"{base}/residents/Isabella Rodriguez/interview/",
            {"persona": "a reporter", "question": "Why?"},
            format="json",
        ),
        api.get(f"{base}/residents/Isabella Rodriguez/interviews/"),
        api.post(
            f"{base}/residents/Isabella Rodriguez/whisper/", {"statement": "x"}, format="json"
        ),
        api.post(
            f"{base}/residents/Isabella Rodriguez/control/",
            {"user_controlled": True},
            format="json",
        ),
        api.post(f"{base}/residents/Isabella Rodriguez/go/", {"address": "x"}, format="json"),
        api.post(
            f"{base}/residents/Isabella Rodriguez/say/",
            {"to": "Maria Lopez", "text": "hi"},
            format="json",
        ),
        api.get(f"{base}/objects/"),
        api.put(f"{base}/objects/", {"address": "x", "state": "burning"}, format="json"),
        api.get(f"{base}/replay/"),
        api.get(f"{base}/facts/"),
        api.get(f"{base}/facts/holders/", {"fact": "the library closes early on Friday"}),
        api.delete(f"{base}/"),
    ):
        assert response.status_code == 404, response.content
        assert error_of(response)["code"] == "not_found"
    listed = [row["id"] for row in api.get("/api/simulations/").json()["results"]]
    assert listed == [mine["id"]]
    assert other_api.get(f"{base}/").status_code == 200


@pytest.mark.django_db
@pytest.mark.parametrize(
    "url",
    [
        "/api/simulations/999999/",
        "/api/simulations/abc/",
        "/api/simulations/99999999999999999999/",
        "/api/simulations/999999/events/",
        "/api/simulations/99999999999999999999/residents/",
        "/api/towns/999999/",
        "/api/towns/999999/locations/",
        "/api/towns/999999/path/?from_x=1&from_y=1&to_x=2&to_y=2",
        "/api/towns/999999/map/",
        "/api/towns/99999999999999999999/map/",
        "/api/simulations/99999999999999999999/replay/",
    ],
)
def test_missing_objects_are_404_in_the_error_format(api: APIClient, url: str) -> None:
    response = api.get(url)
    assert response.status_code == 404
    assert error_of(response)["code"] == "not_found"


@pytest.mark.django_db
def test_the_root_of_the_api_links_its_collections(api: APIClient, client: Client) -> None:
    root = api.get("/api/")
    assert root.status_code == 200
    links = root.json()
    for name in ("bases", "towns", "simulations", "tokens", "webhooks", "experiments"):
        assert links[name].endswith(f"/api/{name}/"), links
        assert api.get(links[name]).status_code == 200
    assert client.get("/api/").status_code in (401, 403)  # anonymous: no way in
