"""Limits and the one error format: throttles in the shared cache, body size, 404 and 500."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.cache import cache, caches
from django.test import RequestFactory
from rest_framework.test import APIClient

from api.errors import handler500
from tests.api import create, error_of
from world.models import Event

ISABELLA = "Isabella Rodriguez"


def _rates(settings: Any, **rates: str) -> None:
    framework = dict(settings.REST_FRAMEWORK)
    framework["DEFAULT_THROTTLE_RATES"] = {**framework["DEFAULT_THROTTLE_RATES"], **rates}
    settings.REST_FRAMEWORK = framework


def test_throttle_counts_live_in_redis() -> None:
    assert type(caches["default"]).__name__ == "RedisCache"
    cache.set("throttle-probe", 1, timeout=5)
    assert cache.get("throttle-probe") == 1


@pytest.mark.django_db
def test_interviews_are_throttled_per_user(
    api: APIClient, other_api: APIClient, settings: Any
) -> None:
    _rates(settings, interview="2/minute")
    simulation = create(api)
    url = f"/api/simulations/{simulation['id']}/residents/{ISABELLA}/interview/"
    body = {"persona": "a news reporter", "question": "How is the cafe?"}
    for _ in range(2):
        assert api.post(url, body, format="json").status_code == 201
    events = Event.objects.count()
    third = api.post(url, body, format="json")
    assert third.status_code == 429
    assert error_of(third)["code"] == "throttled"
    assert int(third["Retry-After"]) > 0
    assert Event.objects.count() == events
    # Another user has a count of their own (and does not see this simulation).
    theirs = create(other_api)
    other_url = f"/api/simulations/{theirs['id']}/residents/{ISABELLA}/interview/"
    assert other_api.post(other_url, body, format="json").status_code == 201
    # Reads are not throttled.
    assert api.get(url.replace("interview/", "interviews/")).status_code == 200


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("scope", "path", "body"),
    [
        ("whisper", "residents/Isabella Rodriguez/whisper/", {"statement": "I like tea"}),
        ("say", "residents/Isabella Rodriguez/say/", {"to": "Maria Lopez", "text": "Hi"}),
        ("run", "run/", {"steps": 1}),
    ],
)
def test_the_expensive_endpoints_are_throttled(
    api: APIClient, settings: Any, scope: str, path: str, body: dict[str, Any]
) -> None:
    _rates(settings, **{scope: "1/minute"})
    simulation = create(api)
    url = f"/api/simulations/{simulation['id']}/{path}"
    first = api.post(url, body, format="json")
    assert first.status_code != 429, first.content
    second = api.post(url, body, format="json")
    assert second.status_code == 429, second.content
    assert error_of(second)["code"] == "throttled"


@pytest.mark.django_db
def test_a_body_over_the_limit_is_413_before_anything_reads_it(
    api: APIClient, settings: Any
) -> None:
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 2000
    simulation = create(api)
    big = {"statement": "x" * 3000}
    response = api.post(
        f"/api/simulations/{simulation['id']}/residents/{ISABELLA}/whisper/", big, format="json"
    )
    assert response.status_code == 413
    error = error_of(response)
    assert error["code"] == "request_too_large" and error["limit"] == 2000
    small = api.post(
        f"/api/simulations/{simulation['id']}/residents/{ISABELLA}/whisper/",
        {"statement": "x" * 100},
        format="json",
    )
    assert small.status_code == 201


@pytest.mark.django_db
def test_unknown_api_urls_are_404_in_the_error_format(api: APIClient) -> None:
    for url in ("/api/nothing/", "/api/simulations/1/nothing/", "/api/towns/x/y/z/"):
        response = api.get(url)
        assert response.status_code == 404
        assert response["Content-Type"] == "application/problem+json"
        assert error_of(response)["code"] == "not_found"
    assert APIClient().get("/api/nothing/").status_code == 404  # even for anonymous
    assert "html" in api.get("/nothing/")["Content-Type"]


def test_a_server_error_under_api_is_in_the_error_format() -> None:
    response = handler500(RequestFactory().get("/api/simulations/"))
    assert response.status_code == 500
    assert response["Content-Type"] == "application/problem+json"
    assert json.loads(response.content) == {
        "type": "about:blank",
        "title": "Internal Server Error",
        "status": 500,
        "detail": "The server failed; the error is logged.",
        "code": "server_error",
        "errors": [],
    }
    assert "html" in handler500(RequestFactory().get("/admin/"))["Content-Type"]


@pytest.mark.django_db
def test_methods_not_allowed_are_405_in_the_error_format(api: APIClient) -> None:
    response = api.delete("/api/simulations/")
    assert response.status_code == 405
    assert error_of(response)["code"] == "method_not_allowed"
