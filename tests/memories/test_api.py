"""The memory API: listing and filtering, retrieval (and its touch), evidence trees."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from memories.events import MEMORY_TOUCHED
from memories.models import Evidence, Memory, MemoryKind
from memories.selectors import memory_evidence_tree
from memories.services import MemoryDraft, memories_create
from tests.api import N25, advance, create, error_of, fields_of
from world.models import Agent, Event, Simulation

ISABELLA = "Isabella Rodriguez"
PARTY = "You are excited to be planning a Valentine's Day party"


def _base(simulation_id: int, resident: str = ISABELLA) -> str:
    return f"/api/simulations/{simulation_id}/residents/{resident}"


def _reflect(simulation_id: int) -> tuple[int, int]:
    """Isabella reflects on memories 3 and 1, then on that reflection and memory 2.

    Returns the two reflections' numbers (depth 1 and depth 2).
    """
    simulation = Simulation.objects.get(pk=simulation_id)
    seeds = len(Agent.objects.get(simulation=simulation, name=ISABELLA).seed_statements)
    first, second = seeds + 1, seeds + 2
    memories_create(
        simulation=simulation,
        drafts=[
            MemoryDraft(
                agent=ISABELLA,
                kind=MemoryKind.REFLECTION,
                description="Isabella values her friendships with her regulars",
                importance=6,
                evidence=(3, 1),
            ),
            MemoryDraft(
                agent=ISABELLA,
                kind=MemoryKind.REFLECTION,
                description="Isabella's cafe is the heart of her social life",
                importance=7,
                evidence=(first, 2),
            ),
        ],
    )
    return first, second


@pytest.fixture
def sim(api: APIClient) -> dict[str, Any]:
    return create(api)


# --- retrieval -----------------------------------------------------------------------------


@pytest.mark.django_db
def test_isabella_recalls_her_party_first(api: APIClient) -> None:
    simulation = create(api, base=N25)
    residents = Agent.objects.filter(simulation_id=simulation["id"])
    assert residents.count() == 25
    for resident in residents:
        assert resident.seed_statements
        assert resident.memories.count() == len(resident.seed_statements), resident.name

    response = api.post(
        f"{_base(simulation['id'])}/retrieve/", {"query": "Valentine's Day party"}, format="json"
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["query"] == "Valentine's Day party"
    assert body["mode"] == "exact"
    assert body["weights"] == {"recency": 1.0, "importance": 1.0, "relevance": 1.0}
    assert len(body["results"]) == 10
    top = body["results"][0]
    assert top["memory"]["description"].startswith(PARTY)
    scores = [r["score"] for r in body["results"]]
    assert scores == sorted(scores, reverse=True)
    # The party memory is also the most relevant by itself.
    assert top["relevance"] == max(r["relevance"] for r in body["results"])

    scale = api.post(
        f"{_base(simulation['id'])}/retrieve/",
        {"query": "Valentine's Day party", "mode": "scale", "k": 3, "touch": False},
        format="json",
    )
    assert scale.status_code == 200
    assert scale.json()["results"][0]["memory"]["description"].startswith(PARTY)


@pytest.mark.django_db
def test_retrieve_touches_the_returned_memories(api: APIClient, sim: dict[str, Any]) -> None:
    simulation = advance(sim["id"], 3)
    simulation.refresh_from_db()
    now = simulation.sim_time
    agent = Agent.objects.get(simulation=simulation, name=ISABELLA)
    before = dict(Memory.objects.filter(agent=agent).values_list("number", "last_accessed"))
    assert all(at < now for at in before.values())

    response = api.post(
        f"{_base(sim['id'], str(agent.pk))}/retrieve/",
        {"query": "Hobbs Cafe customers", "k": 3, "touch": True},
        format="json",
    )
    assert response.status_code == 200, response.content
    body = response.json()
    numbers = [r["memory"]["number"] for r in body["results"]]
    assert len(numbers) == 3
    assert body["now"] == now.isoformat().replace("+00:00", "Z")
    assert all(r["memory"]["last_accessed"] == body["now"] for r in body["results"])

    after = dict(Memory.objects.filter(agent=agent).values_list("number", "last_accessed"))
    for number, at in after.items():
        assert at == (now if number in numbers else before[number])
    event = Event.objects.filter(simulation=simulation).order_by("-seq").first()
    assert event is not None
    assert event.kind == MEMORY_TOUCHED and event.agent == ISABELLA
    assert event.payload == {"numbers": sorted(numbers), "at": now.isoformat()}

    # Without touch (the default, or false), nothing changes and nothing is logged.
    advance(sim["id"], 1)
    events = Event.objects.count()
    for body in ({"query": "Hobbs Cafe customers", "k": 3, "touch": False}, {"query": "cafe"}):
        quiet = api.post(f"{_base(sim['id'])}/retrieve/", body, format="json")
        assert quiet.status_code == 200
        assert Event.objects.count() == events
        memories = Memory.objects.filter(agent=agent).values_list("number", "last_accessed")
        assert dict(memories) == after


@pytest.mark.django_db
@pytest.mark.parametrize(
    "body",
    [
        {},
        {"query": ""},
        {"query": "   "},
        {"query": "x" * 1001},
        {"query": 5},
        {"query": "party", "k": 0},
        {"query": "party", "k": 101},
        {"query": "party", "k": "5"},
        {"query": "party", "k": 2.5},
        {"query": "party", "k": True},
        {"query": "party", "mode": "fast"},
        {"query": "party", "touch": "yes"},
        {"query": "party", "touch": 1},
        {"query": "party", "top_k": 5},
        ["party"],
    ],
)
def test_bad_retrieve_bodies_are_400(api: APIClient, sim: dict[str, Any], body: Any) -> None:
    events = Event.objects.count()
    response = api.post(f"{_base(sim['id'])}/retrieve/", body, format="json")
    assert response.status_code == 400, response.content
    error_of(response)
    assert Event.objects.count() == events


@pytest.mark.django_db
def test_malformed_json_is_400(api: APIClient, sim: dict[str, Any]) -> None:
    response = api.post(
        f"{_base(sim['id'])}/retrieve/", "{not json", content_type="application/json"
    )
    assert response.status_code == 400
    assert error_of(response)["code"] == "parse_error"


@pytest.mark.django_db
def test_bad_weights_in_config_are_400(api: APIClient) -> None:
    # The API refuses such a config at create; a simulation made before it was checked
    # may still hold one.
    simulation = create(api)
    Simulation.objects.filter(pk=simulation["id"]).update(
        config={"retrieval_weights": {"recency": -1}}
    )
    response = api.post(f"{_base(simulation['id'])}/retrieve/", {"query": "x"}, format="json")
    assert response.status_code == 400
    assert "config" in fields_of(response)


@pytest.mark.django_db
def test_reference_weights_are_reported(api: APIClient) -> None:
    simulation = create(api, config={"retrieval_weights": "reference"})
    response = api.post(f"{_base(simulation['id'])}/retrieve/", {"query": "x"}, format="json")
    assert response.status_code == 200
    assert response.json()["weights"] == {"recency": 0.5, "importance": 2.0, "relevance": 3.0}


# --- list and detail -----------------------------------------------------------------------


@pytest.mark.django_db
def test_memories_are_listed_newest_first(api: APIClient, sim: dict[str, Any]) -> None:
    first, second = _reflect(sim["id"])
    response = api.get(f"{_base(sim['id'])}/memories/")
    assert response.status_code == 200
    body = response.json()
    assert body["count"] == second
    numbers = [row["number"] for row in body["results"]]
    assert numbers == list(range(second, 0, -1))
    newest = body["results"][0]
    assert newest["kind"] == "reflection" and newest["depth"] == 2
    assert newest["evidence"] == [first, 2]
    assert body["results"][1]["evidence"] == [3, 1]
    assert body["results"][-1]["evidence"] == []
    assert set(newest) == {
        "number",
        "kind",
        "description",
        "subject",
        "predicate",
        "object",
        "created",
        "last_accessed",
        "importance",
        "rating_due",
        "depth",
        "evidence",
    }
    page = api.get(f"{_base(sim['id'])}/memories/?limit=2&offset=1").json()
    assert [row["number"] for row in page["results"]] == [second - 1, second - 2]


@pytest.mark.django_db
def test_memory_filters(api: APIClient, sim: dict[str, Any]) -> None:
    first, second = _reflect(sim["id"])
    url = f"{_base(sim['id'])}/memories/"

    def numbers(query: str) -> list[int]:
        response = api.get(f"{url}?{query}")
        assert response.status_code == 200, response.content
        return [row["number"] for row in response.json()["results"]]

    agent = Agent.objects.get(simulation_id=sim["id"], name=ISABELLA)
    memories = Memory.objects.filter(agent=agent)
    assert numbers("kind=reflection") == [second, first]
    assert numbers("kind=plan") == []
    assert len(numbers("kind=thought")) == first - 1
    assert numbers("text=VALENTINE") == [
        m.number for m in memories.filter(description__icontains="valentine").order_by("-number")
    ]
    assert numbers("depth_min=1") == [second, first]
    assert numbers("depth_min=2") == [second]
    assert numbers("importance_min=7&importance_max=7&kind=reflection") == [second]
    expected = sorted((m.number for m in memories if 5 <= m.importance <= 8), reverse=True)
    assert numbers("importance_min=5&importance_max=8") == expected

    advance(sim["id"], 6)
    simulation = Simulation.objects.get(pk=sim["id"])
    memories_create(
        simulation=simulation,
        drafts=[
            MemoryDraft(agent=ISABELLA, kind=MemoryKind.OBSERVATION, description="a", importance=1)
        ],
    )
    later = simulation.sim_time
    assert numbers(f"created_after={later.isoformat().replace('+00:00', 'Z')}") == [second + 1]
    before = (later - timedelta(seconds=1)).isoformat()
    assert numbers(f"created_before={before.replace('+00:00', 'Z')}")[0] == second


@pytest.mark.django_db
@pytest.mark.parametrize(
    "query",
    [
        "kind=memory",
        "importance_min=0",
        "importance_min=11",
        "importance_max=1.5",
        "importance_max=high",
        "depth_min=-1",
        "depth_min=x",
        "created_after=yesterday",
        "created_before=2023-02-30T00:00:00Z",
    ],
)
def test_bad_filters_are_400(api: APIClient, sim: dict[str, Any], query: str) -> None:
    response = api.get(f"{_base(sim['id'])}/memories/?{query}")
    assert response.status_code == 400, response.content
    error_of(response)


@pytest.mark.django_db
def test_memory_detail(api: APIClient, sim: dict[str, Any]) -> None:
    agent = Agent.objects.get(simulation_id=sim["id"], name=ISABELLA)
    by_name = api.get(f"{_base(sim['id'])}/memories/1/")
    assert by_name.status_code == 200
    assert by_name.json()["description"] == agent.seed_statements[0]
    by_id = api.get(f"{_base(sim['id'], str(agent.pk))}/memories/1/")
    assert by_id.json() == by_name.json()
    for url in (
        f"{_base(sim['id'])}/memories/9999/",
        f"{_base(sim['id'])}/memories/99999999999999999999/",
        f"{_base(sim['id'])}/memories/9999/evidence/",
        f"{_base(sim['id'], 'Nobody Here')}/memories/",
        f"{_base(sim['id'], 'Nobody Here')}/memories/1/",
        f"{_base(sim['id'], '999999')}/memories/1/",
        f"/api/simulations/999999/residents/{ISABELLA}/memories/",
    ):
        response = api.get(url)
        assert response.status_code == 404, url
        assert error_of(response)["code"] == "not_found"
    missing = api.post(
        f"{_base(sim['id'], 'Nobody Here')}/retrieve/", {"query": "x"}, format="json"
    )
    assert missing.status_code == 404


# --- evidence trees ------------------------------------------------------------------------


def _tree_numbers(node: dict[str, Any]) -> Any:
    return [node["memory"]["number"], [_tree_numbers(child) for child in node["evidence"]]]


@pytest.mark.django_db
def test_evidence_tree_in_citation_order(api: APIClient, sim: dict[str, Any]) -> None:
    first, second = _reflect(sim["id"])
    response = api.get(f"{_base(sim['id'])}/memories/{second}/evidence/")
    assert response.status_code == 200, response.content
    tree = response.json()
    assert _tree_numbers(tree) == [second, [[first, [[3, []], [1, []]]], [2, []]]]
    assert tree["memory"]["depth"] == 2
    assert tree["memory"]["evidence"] == [first, 2]
    assert tree["evidence"][0]["memory"]["kind"] == "reflection"

    leaf = api.get(f"{_base(sim['id'])}/memories/1/evidence/").json()
    assert _tree_numbers(leaf) == [1, []]


@pytest.mark.django_db
def test_evidence_tree_costs_the_same_queries_at_any_depth(
    api: APIClient, sim: dict[str, Any]
) -> None:
    _, second = _reflect(sim["id"])
    counts = []
    for number in (1, second):
        with CaptureQueriesContext(connection) as queries:
            assert api.get(f"{_base(sim['id'])}/memories/{number}/evidence/").status_code == 200
        counts.append(len(queries))
    assert counts[0] == counts[1]
    assert sum("WITH RECURSIVE" in q["sql"] for q in queries.captured_queries) == 1


@pytest.mark.django_db
def test_evidence_tree_survives_a_cycle(sim: dict[str, Any]) -> None:
    first, second = _reflect(sim["id"])
    agent = Agent.objects.get(simulation_id=sim["id"], name=ISABELLA)
    root = Memory.objects.get(agent=agent, number=second)
    leaf = Memory.objects.get(agent=agent, number=1)
    # Only a corrupted table could hold this: memory 1 citing the reflection above it.
    Evidence.objects.create(reflection=leaf, memory=root, position=0)

    def numbers(node: Any) -> Any:
        return [node["memory"].number, [numbers(child) for child in node["evidence"]]]

    # The walk stops where it would come back to a memory on its own path.
    assert numbers(memory_evidence_tree(memory=root)) == [
        second,
        [[first, [[3, []], [1, []]]], [2, []]],
    ]
    assert numbers(memory_evidence_tree(memory=leaf)) == [
        1,
        [[second, [[first, [[3, []]]], [2, []]]]],
    ]
