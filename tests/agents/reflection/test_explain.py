"""Explaining: "why does this resident believe X" over the API, and the admin's views."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from agents.reflection.models import ReflectionJob
from memories.models import Memory, MemoryKind
from runtime import engine
from world.models import Simulation

from .conftest import KLAUS, reflecting


@pytest.fixture
def reflected(user: User) -> Simulation:
    """A run with reflections on reflections, ranked by relevance alone (the embeddings
    are hash vectors: a statement is relevant to its own text only)."""
    weights = {"recency": 0, "importance": 0, "relevance": 1}
    simulation = reflecting(user, retrieval_weights=weights)
    return engine.simulation_run_inline(simulation=simulation, steps=60)


def _check_tree(node: dict[str, Any]) -> int:
    """Depths are consistent down to memories that cite nothing; returns the node's depth."""
    memory, children = node["memory"], node["evidence"]
    if memory["kind"] != MemoryKind.REFLECTION:
        assert children == [] and memory["depth"] == 0
        return 0
    assert [child["memory"]["number"] for child in children] == memory["evidence"]
    assert memory["depth"] == 1 + max(_check_tree(child) for child in children)
    return int(memory["depth"])


def _why(api: APIClient, simulation: Simulation, body: dict[str, Any], who: str = KLAUS) -> Any:
    return api.post(f"/api/simulations/{simulation.pk}/residents/{who}/why/", body, format="json")


@pytest.mark.django_db(transaction=True)
def test_why_ranks_reflections_each_with_its_tree(api: APIClient, reflected: Simulation) -> None:
    klaus = Memory.objects.filter(agent__simulation=reflected, agent__name=KLAUS)
    deep = klaus.filter(kind=MemoryKind.REFLECTION, depth__gte=2).order_by("number").last()
    assert deep is not None
    before = list(klaus.order_by("number").values_list("number", "last_accessed"))
    response = _why(api, reflected, {"statement": deep.description, "k": 3})
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["statement"] == deep.description
    explanations = body["explanations"]
    assert len(explanations) == 3
    top = explanations[0]
    assert top["tree"]["memory"]["number"] == deep.number and top["relevance"] > 0.99
    assert [e["score"] for e in explanations] == sorted(
        (e["score"] for e in explanations), reverse=True
    )
    for explanation in explanations:
        assert explanation["tree"]["memory"]["kind"] == MemoryKind.REFLECTION
        _check_tree(explanation["tree"])
    assert _check_tree(top["tree"]) >= 2
    # Explaining reads only: no memory was touched.
    assert list(klaus.order_by("number").values_list("number", "last_accessed")) == before

    # The evidence endpoint gives the same tree for that reflection.
    evidence = api.get(
        f"/api/simulations/{reflected.pk}/residents/{KLAUS}/memories/{deep.number}/evidence/"
    )
    assert evidence.status_code == 200
    assert evidence.json() == top["tree"]


@pytest.mark.django_db(transaction=True)
def test_why_refuses_bad_requests_and_other_peoples_simulations(
    api: APIClient, other_api: APIClient, reflected: Simulation
) -> None:
    assert _why(api, reflected, {"statement": ""}).status_code == 400
    assert _why(api, reflected, {"statement": "x", "because": 1}).status_code == 400
    assert _why(api, reflected, {"statement": "x", "k": 21}).status_code == 400
    assert _why(api, reflected, {"statement": "x"}, who="Nobody").status_code == 404
    assert _why(other_api, reflected, {"statement": "x"}).status_code == 404
    assert _why(APIClient(), reflected, {"statement": "x"}).status_code == 401
    # A resident with no reflections yet: nothing to explain.
    fresh = reflecting(reflected.owner)
    response = _why(api, fresh, {"statement": "x"})
    assert response.status_code == 200 and response.json()["explanations"] == []


@pytest.mark.django_db(transaction=True)
def test_admin_lists_jobs_and_shows_evidence_trees(reflected: Simulation) -> None:
    staff = Client()
    staff.force_login(User.objects.create_superuser(username="staff", password="staff-pw-1"))
    changelist = reverse("admin:reflection_reflectionjob_changelist")
    response = staff.get(changelist, {"status__exact": "done"})
    assert response.status_code == 200 and KLAUS in response.content.decode()
    job = ReflectionJob.objects.filter(simulation=reflected, agent=KLAUS).last()
    assert job is not None
    page = staff.get(reverse("admin:reflection_reflectionjob_change", args=[job.pk]))
    assert page.status_code == 200
    text = page.content.decode()
    assert job.questions[0].replace("'", "&#x27;") in text
    made = Memory.objects.filter(
        agent__simulation=reflected,
        agent__name=KLAUS,
        kind=MemoryKind.REFLECTION,
        created=reflected.sim_time_at(job.due_step),
    )
    assert made.exists()
    assert all(reverse("admin:memories_memory_change", args=[m.pk]) in text for m in made)

    deep = Memory.objects.filter(agent__simulation=reflected, depth__gte=2).first()
    assert deep is not None
    tree = staff.get(reverse("admin:reflection_evidence_tree", args=[deep.pk]))
    assert tree.status_code == 200
    cited = [link.memory for link in deep.evidence_links.select_related("memory")]
    assert all(m.description.replace("'", "&#x27;") in tree.content.decode() for m in cited)
    observation = Memory.objects.filter(kind=MemoryKind.OBSERVATION).first()
    assert observation is not None
    assert (
        staff.get(reverse("admin:reflection_evidence_tree", args=[observation.pk])).status_code
        == 404
    )
    assert staff.post(changelist + "add/").status_code == 403
    # Not for the public.
    anonymous = Client().get(reverse("admin:reflection_evidence_tree", args=[deep.pk]))
    assert anonymous.status_code == 302
