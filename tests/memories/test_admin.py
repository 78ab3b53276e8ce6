"""Memory admin: read-only changelist and change pages, and a retrieval form that never
touches; staff only."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils.html import escape
from rest_framework.test import APIClient

from memories.models import Memory, MemoryKind
from memories.services import MemoryDraft, memories_create
from tests.api import advance, create
from world.models import Agent, Event, Simulation

ISABELLA = "Isabella Rodriguez"
CHANGELIST = "admin:memories_memory_changelist"
RETRIEVE = "admin:memories_memory_retrieve"


@pytest.fixture
def simulation(api: APIClient) -> Simulation:
    simulation = advance(create(api)["id"], 2)
    memories_create(
        simulation=simulation,
        drafts=[
            MemoryDraft(
                agent=ISABELLA,
                kind=MemoryKind.REFLECTION,
                description="Isabella's regulars are her friends",
                # Less poignant than her party: the newest memory, it would lead on recency.
                importance=4,
                evidence=(3, 1),
            )
        ],
    )
    return simulation


def _memory(simulation: Simulation, number: int) -> Memory:
    return Memory.objects.get(simulation=simulation, agent__name=ISABELLA, number=number)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "query",
    ["", "?q=valentine", "?kind__exact=reflection", "?depth__exact=1", "?o=2", "?o=-6"],
)
def test_staff_sees_the_changelist(staff: Client, simulation: Simulation, query: str) -> None:
    response = staff.get(reverse(CHANGELIST) + query)
    assert response.status_code == 200
    assert b"Retrieve memories for a query" in response.content
    assert b"embedding" not in response.content.lower()


@pytest.mark.django_db
def test_a_memorys_row_shows_its_description_first(staff: Client, simulation: Simulation) -> None:
    """A person browsing memories reads what each says first (a link to it), under the
    title "memories"."""
    response = staff.get(reverse(CHANGELIST) + f"?simulation__id__exact={simulation.pk}")
    text = response.content.decode()
    assert "Select memory to view" in text and "Memorys" not in text
    first = Memory.objects.filter(simulation=simulation).order_by("agent", "number").first()
    assert first is not None
    row = text[text.index('<tr><th class="field-snippet">') :].split("</tr>", 1)[0]
    assert escape(first.description[:60]) in row.split("</th>", 1)[0]  # the first cell
    assert reverse("admin:memories_memory_change", args=[first.pk]) in row.split("</th>", 1)[0]


@pytest.mark.django_db
def test_changelist_filters_by_simulation(
    staff: Client, simulation: Simulation, api: APIClient
) -> None:
    create(api)  # another simulation, with its residents' seed memories
    response = staff.get(reverse(CHANGELIST) + f"?simulation__id__exact={simulation.pk}")
    assert response.status_code == 200
    count = response.context["cl"].result_count
    assert count == Memory.objects.filter(simulation=simulation).count()
    assert count < Memory.objects.count()


@pytest.mark.django_db
def test_change_page_shows_evidence_and_cited_by(staff: Client, simulation: Simulation) -> None:
    reflection = Memory.objects.get(simulation=simulation, kind=MemoryKind.REFLECTION)
    cited = [_memory(simulation, 3), _memory(simulation, 1)]
    page = staff.get(reverse("admin:memories_memory_change", args=[reflection.pk]))
    assert page.status_code == 200
    text = page.content.decode()
    assert "Evidence (cited memories, in citation order)" in text
    first, second = (text.index(escape(m.description)) for m in cited)
    assert first < second  # citation order, not number order
    assert "Embedding (L2 norm)" in text and "1.0000" in text
    assert "<textarea" not in text and 'name="_save"' not in text  # read-only

    seed = staff.get(reverse("admin:memories_memory_change", args=[cited[0].pk]))
    assert seed.status_code == 200
    assert escape(reflection.description) in seed.content.decode()  # cited by


@pytest.mark.django_db
def test_memories_cannot_be_added_changed_or_deleted(staff: Client, simulation: Simulation) -> None:
    memory = _memory(simulation, 1)
    assert staff.get(reverse("admin:memories_memory_add")).status_code == 403
    assert staff.get(reverse("admin:memories_memory_delete", args=[memory.pk])).status_code == 403
    response = staff.post(
        reverse("admin:memories_memory_change", args=[memory.pk]),
        {"description": "rewritten", "importance": 10},
    )
    assert response.status_code == 403
    assert _memory(simulation, 1).description != "rewritten"


@pytest.mark.django_db
def test_retrieval_form_ranks_without_touching(staff: Client, simulation: Simulation) -> None:
    page = staff.get(reverse(RETRIEVE))
    assert page.status_code == 200
    assert b"does not touch" in page.content

    events = Event.objects.count()
    accessed = dict(Memory.objects.values_list("pk", "last_accessed"))
    response = staff.post(
        reverse(RETRIEVE),
        {
            "simulation": simulation.pk,
            "agent": ISABELLA,
            "query": "Valentine's Day party",
            "k": 5,
            "mode": "exact",
        },
    )
    assert response.status_code == 200
    results = response.context["results"]
    assert len(results) == 5
    assert "Valentine's Day party" in results[0]["memory"].description
    text = response.content.decode()
    for column in ("recency", "importance", "relevance", "score"):
        assert f"<th>{column}</th>" in text
    assert Event.objects.count() == events
    assert dict(Memory.objects.values_list("pk", "last_accessed")) == accessed

    agent = Agent.objects.get(simulation=simulation, name=ISABELLA)
    by_id = staff.post(
        reverse(RETRIEVE),
        {"simulation": simulation.pk, "agent": agent.pk, "query": "x", "k": 2, "mode": "scale"},
    )
    assert len(by_id.context["results"]) == 2


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("field", "value"),
    [("agent", "Nobody Here"), ("k", "0"), ("k", "101"), ("mode", "fast"), ("query", "")],
)
def test_retrieval_form_reports_bad_input(
    staff: Client, simulation: Simulation, field: str, value: str
) -> None:
    data = {
        "simulation": str(simulation.pk),
        "agent": ISABELLA,
        "query": "party",
        "k": "5",
        "mode": "exact",
        field: value,
    }
    response = staff.post(reverse(RETRIEVE), data)
    assert response.status_code == 200
    assert field in response.context["form"].errors
    assert response.context["results"] == []


@pytest.mark.django_db
def test_non_staff_are_sent_to_login(user: User, simulation: Simulation) -> None:
    client = Client()
    client.force_login(user)
    memory = _memory(simulation, 1)
    for url in (
        reverse(CHANGELIST),
        reverse("admin:memories_memory_change", args=[memory.pk]),
        reverse(RETRIEVE),
    ):
        response = client.get(url)
        assert response.status_code == 302, url
        assert response["Location"].startswith(reverse("admin:login"))
    assert client.post(reverse(RETRIEVE), {"query": "x"}).status_code == 302
