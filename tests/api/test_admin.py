"""The admin: staff can open every page; others are sent to the login page."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from world.models import Agent, Event, Location, Town

from . import advance, create

CHANGELISTS = [
    "admin:world_town_changelist",
    "admin:world_location_changelist",
    "admin:world_simulation_changelist",
    "admin:world_event_changelist",
    "admin:world_agent_changelist",
]


@pytest.fixture
def simulation_id(api: APIClient) -> int:
    simulation = create(api)
    advance(simulation["id"], 1)
    return int(simulation["id"])


@pytest.mark.django_db
@pytest.mark.parametrize("name", CHANGELISTS)
@pytest.mark.parametrize("query", ["", "?q=isabella", "?o=1"])
def test_staff_sees_changelists(staff: Client, simulation_id: int, name: str, query: str) -> None:
    assert staff.get(reverse(name) + query).status_code == 200


@pytest.mark.django_db
def test_changelist_filters(staff: Client, simulation_id: int, ville: Town) -> None:
    locations = reverse("admin:world_location_changelist")
    assert staff.get(f"{locations}?kind=arena&town={ville.pk}").status_code == 200
    events = reverse("admin:world_event_changelist")
    assert staff.get(f"{events}?kind=agent.moved").status_code == 200
    simulations = reverse("admin:world_simulation_changelist")
    assert staff.get(f"{simulations}?status=idle&base=x").status_code == 200


@pytest.mark.django_db
def test_staff_sees_change_pages(staff: Client, simulation_id: int, ville: Town) -> None:
    event = Event.objects.filter(simulation_id=simulation_id, kind="agent.created").first()
    assert event is not None
    page = staff.get(reverse("admin:world_event_change", args=[event.pk]))
    assert page.status_code == 200
    assert b"<pre>" in page.content and b"first_name" in page.content
    place = Location.objects.get(town=ville, address="the Ville:Hobbs Cafe")
    agent = Agent.objects.filter(simulation_id=simulation_id).first()
    assert agent is not None
    for url in (
        reverse("admin:world_town_change", args=[ville.pk]),
        reverse("admin:world_location_change", args=[place.pk]),
        reverse("admin:world_simulation_change", args=[simulation_id]),
        reverse("admin:world_agent_change", args=[agent.pk]),
    ):
        assert staff.get(url).status_code == 200, url


@pytest.mark.django_db
def test_event_log_is_read_only_in_admin(staff: Client, simulation_id: int) -> None:
    event = Event.objects.filter(simulation_id=simulation_id).first()
    assert event is not None
    assert staff.get(reverse("admin:world_event_add")).status_code == 403
    assert staff.get(reverse("admin:world_event_delete", args=[event.pk])).status_code == 403
    change = reverse("admin:world_event_change", args=[event.pk])
    assert staff.post(change, {"kind": "tampered"}).status_code == 403
    event.refresh_from_db()
    assert event.kind != "tampered"


@pytest.mark.django_db
@pytest.mark.parametrize("name", CHANGELISTS)
def test_non_staff_is_sent_to_login(user: User, name: str) -> None:
    client = Client()
    client.force_login(user)
    url = reverse(name)
    response = client.get(url)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("admin:login"))
