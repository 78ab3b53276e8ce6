"""The event log endpoint: cursor pages in seq order, and its filters."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from rest_framework.test import APIClient

from world.models import Event

from . import N25, advance, create, error_of


def _walk(api: APIClient, url: str) -> tuple[list[dict[str, Any]], int]:
    rows: list[dict[str, Any]] = []
    pages = 0
    next_url: str | None = url
    while next_url:
        page = api.get(next_url).json()
        rows += page["results"]
        pages += 1
        next_url = page["next"]
    return rows, pages


@pytest.mark.django_db
def test_cursor_pages_walk_every_event_once_in_seq_order(api: APIClient) -> None:
    simulation = create(api, N25)
    created = Event.objects.filter(simulation_id=simulation["id"]).count()  # with seed memories
    advance(simulation["id"], 3)
    total = Event.objects.filter(simulation_id=simulation["id"]).count()
    assert total == created + 3 * 26
    rows, pages = _walk(api, f"/api/simulations/{simulation['id']}/events/?page_size=7")
    assert [row["seq"] for row in rows] == list(range(1, total + 1))
    assert pages == -(-total // 7)
    first = rows[0]
    assert first["kind"] == "simulation.created" and first["step"] == 0
    assert set(first) == {"seq", "step", "sim_time", "kind", "agent", "payload", "created_at"}


@pytest.mark.django_db
def test_default_and_maximum_page_size(api: APIClient) -> None:
    simulation = create(api, N25)
    advance(simulation["id"], 4)
    total = Event.objects.filter(simulation_id=simulation["id"]).count()
    assert 100 < total < 1000
    url = f"/api/simulations/{simulation['id']}/events/"
    assert len(api.get(url).json()["results"]) == 100
    assert len(api.get(f"{url}?page_size=100000").json()["results"]) == total


@pytest.mark.django_db
def test_previous_page_goes_back(api: APIClient) -> None:
    simulation = create(api, N25)
    url = f"/api/simulations/{simulation['id']}/events/?page_size=10"
    first = api.get(url).json()
    second = api.get(first["next"]).json()
    back = api.get(second["previous"]).json()
    assert back["results"] == first["results"]


@pytest.mark.django_db
def test_filters(api: APIClient) -> None:
    simulation = create(api, N25)
    advance(simulation["id"], 3)
    url = f"/api/simulations/{simulation['id']}/events/?page_size=1000"

    created = api.get(f"{url}&kind=agent.created").json()["results"]
    assert len(created) == 25 and {row["kind"] for row in created} == {"agent.created"}

    klaus = api.get(f"{url}&agent=Klaus Mueller").json()["results"]
    kinds = [row["kind"] for row in klaus if row["kind"] != "memory.created"]
    assert kinds == ["agent.created"] + ["agent.moved"] * 3

    middle = api.get(f"{url}&step_min=1&step_max=2").json()["results"]
    assert {row["step"] for row in middle} == {1, 2} and len(middle) == 52

    last = Event.objects.filter(simulation_id=simulation["id"]).count()
    after = api.get(f"{url}&seq_after=100").json()["results"]
    assert [row["seq"] for row in after] == list(range(101, last + 1))

    both = _walk(api, f"{url}&kind=agent.moved&step_min=2&page_size=3")[0]
    assert len(both) == 50 and all(row["step"] >= 2 for row in both)


@pytest.mark.django_db
@pytest.mark.parametrize("query", ["step_min=abc", "seq_after=1.5", "step_max=x"])
def test_bad_filter_is_400(api: APIClient, query: str) -> None:
    simulation = create(api)
    response = api.get(f"/api/simulations/{simulation['id']}/events/?{query}")
    assert response.status_code == 400
    error_of(response)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "cursor",
    [
        "garbage",
        base64.b64encode(b"p=abc").decode(),  # a position that is not a seq (was a 500)
        base64.b64encode(b"p=99999999999999999999999").decode(),
        base64.b64encode(b"o=1&p=-5").decode(),
        base64.b64encode(b"r=x").decode(),
        # Read as the first page before: nothing DRF would make.
        "",
        base64.b64encode(b"foo").decode(),
        base64.b64encode(b"x=1").decode(),
        base64.b64encode(b"p=5&p=6").decode(),
        base64.b64encode(b"p=50").decode().rstrip("="),  # no padding
        base64.b64encode(b"o=0").decode(),
    ],
)
def test_a_forged_cursor_is_400(api: APIClient, cursor: str) -> None:
    simulation = create(api)
    response = api.get(f"/api/simulations/{simulation['id']}/events/", {"cursor": cursor})
    assert response.status_code == 400, response.content
    error = error_of(response)
    assert error["code"] == "invalid_cursor" and "cursor" in error["detail"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "expected"),
    [("step_min=99999999999999999999", "none"), ("seq_after=-99999999999999999999", "all")],
)
def test_out_of_range_filter_matches_nothing_or_all(
    api: APIClient, query: str, expected: str
) -> None:
    simulation = create(api)
    everything = Event.objects.filter(simulation_id=simulation["id"]).count()
    response = api.get(f"/api/simulations/{simulation['id']}/events/?{query}")
    assert response.status_code == 200
    assert len(response.json()["results"]) == (everything if expected == "all" else 0)
