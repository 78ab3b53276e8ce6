"""Conversations of a simulation: newest first, filtered, paged, and line by line."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.api import error_of

from . import CAFE, ISABELLA, KLAUS, MARIA, stage


def _numbers(api: APIClient, url: str) -> list[int]:
    response = api.get(url)
    assert response.status_code == 200, response.content
    return [row["number"] for row in response.json()["results"]]


@pytest.mark.django_db
def test_list_is_newest_first_without_lines(api: APIClient) -> None:
    simulation = stage(api)
    body: dict[str, Any] = api.get(f"/api/simulations/{simulation.pk}/conversations/").json()
    assert body["count"] == 3
    assert [row["number"] for row in body["results"]] == [3, 2, 1]
    newest = body["results"][0]
    assert newest == {
        "number": 3,
        "participants": [ISABELLA, MARIA],
        "summary": "about the cafe's new menu",
        "address": CAFE,
        "step": 9,
        "started": "2023-02-13T11:33:00Z",
        "line_count": 2,
    }


@pytest.mark.django_db
def test_filters_and_pages(api: APIClient) -> None:
    simulation = stage(api)
    url = f"/api/simulations/{simulation.pk}/conversations/"
    assert _numbers(api, f"{url}?participant={KLAUS}") == [2, 1]
    assert _numbers(api, f"{url}?participant={ISABELLA}&step_min=2") == [3]
    assert _numbers(api, f"{url}?step_min=2&step_max=8") == [2]
    assert _numbers(api, f"{url}?participant=Nobody") == []
    page = api.get(f"{url}?limit=1&offset=1").json()
    assert page["count"] == 3 and [row["number"] for row in page["results"]] == [2]
    assert page["next"] and page["previous"]
    bad = api.get(f"{url}?step_min=soon")
    assert bad.status_code == 400 and error_of(bad)["code"] == "invalid"


@pytest.mark.django_db
def test_detail_has_the_lines(api: APIClient) -> None:
    simulation = stage(api)
    url = f"/api/simulations/{simulation.pk}/conversations"
    body = api.get(f"{url}/1/").json()
    assert body["participants"] == [ISABELLA, KLAUS] and body["step"] == 1
    assert body["lines"] == [
        {"speaker": ISABELLA, "text": "Hello!"},
        {"speaker": KLAUS, "text": "Hi, let's talk about the Valentine's Day party."},
    ]
    assert body["line_count"] == 2
    missing = api.get(f"{url}/99/")
    assert missing.status_code == 404 and error_of(missing)["code"] == "not_found"
