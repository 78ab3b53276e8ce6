"""The admin of residents, plans, conversations and object states: staff read, nobody writes."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from rest_framework.test import APIClient

from agents.models import Conversation, ObjectState, PlanItem
from tests.api import create
from world.models import Agent, Simulation

from . import ISABELLA, stage

MODELS = ["world_agent", "agents_planitem", "agents_conversation", "agents_objectstate"]


@pytest.fixture
def staged(api: APIClient) -> Simulation:
    return stage(api)


def _get(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    return response.content.decode()


@pytest.mark.django_db
def test_staff_sees_changelists(staff: Client, staged: Simulation) -> None:
    for model in MODELS:
        url = reverse(f"admin:{model}_changelist")
        for query in ("", "?q=cafe", "?o=2", f"?simulation__id__exact={staged.pk}"):
            _get(staff, url + query)
    agents = _get(staff, reverse("admin:world_agent_changelist"))
    assert "🍽️ serving customers" in agents and "the Ville:Hobbs Cafe:cafe" in agents
    plans = _get(staff, reverse("admin:agents_planitem_changelist") + "?level=action&superseded=1")
    assert "wiping the tables" in plans and "taking orders" not in plans
    talks = _get(staff, reverse("admin:agents_conversation_changelist") + "?q=menu")
    assert "about the cafe" in talks and "physics" not in talks
    states = _get(staff, reverse("admin:agents_objectstate_changelist"))
    assert "being cleaned" in states


@pytest.mark.django_db
def test_agent_changelist_queries_do_not_grow_with_agents(
    staff: Client, api: APIClient, staged: Simulation
) -> None:
    url = reverse("admin:world_agent_changelist")

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            _get(staff, url)
        return len(captured)

    three = queries()
    create(api)
    assert Agent.objects.count() == 6
    assert queries() == three


@pytest.mark.django_db
def test_staff_sees_change_pages(staff: Client, staged: Simulation) -> None:
    isabella = Agent.objects.get(simulation=staged, name=ISABELLA)
    page = _get(staff, reverse("admin:world_agent_change", args=[isabella.pk]))
    assert "<strong>11:30 (15 min) 🍽️ serving customers</strong>" in page
    assert "wiping the tables" not in page  # superseded
    first = Conversation.objects.get(simulation=staged, number=1)
    assert reverse("admin:agents_conversation_change", args=[first.pk]) in page
    talk = _get(staff, reverse("admin:agents_conversation_change", args=[first.pk]))
    assert "<strong>Isabella Rodriguez</strong>: Hello!" in talk
    item = PlanItem.objects.filter(agent=isabella, level="action").first()
    state = ObjectState.objects.get(simulation=staged)
    assert item is not None
    _get(staff, reverse("admin:agents_planitem_change", args=[item.pk]))
    _get(staff, reverse("admin:agents_objectstate_change", args=[state.pk]))


@pytest.mark.django_db
def test_nobody_writes(staff: Client, staged: Simulation) -> None:
    item = PlanItem.objects.filter(simulation=staged).first()
    assert item is not None
    for model in MODELS:
        assert staff.get(reverse(f"admin:{model}_add")).status_code == 403
    assert staff.get(reverse("admin:agents_planitem_delete", args=[item.pk])).status_code == 403
    changed = staff.post(
        reverse("admin:agents_planitem_change", args=[item.pk]), {"description": "x"}
    )
    assert changed.status_code == 403
    item.refresh_from_db()
    assert item.description != "x"


@pytest.mark.django_db
def test_non_staff_is_sent_to_login(user: User, staged: Simulation) -> None:
    client = Client()
    client.force_login(user)
    talk = Conversation.objects.get(simulation=staged, number=1)
    for url in [
        *(reverse(f"admin:{model}_changelist") for model in MODELS),
        reverse("admin:agents_conversation_change", args=[talk.pk]),
    ]:
        response = client.get(url)
        assert response.status_code == 302, url
        assert response["Location"].startswith(reverse("admin:login"))
