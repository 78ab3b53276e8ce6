"""Retrieval against a float64 NumPy oracle of the paper's formula."""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import pytest
from django.contrib.auth.models import User
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents.services import simulation_create_from_base
from memories import retrieval
from memories.models import Memory, MemoryKind
from memories.retrieval import Mode, Weights, memories_retrieve
from world.models import Agent


def oracle(
    *,
    embeddings: np.ndarray,
    importance: np.ndarray,
    hours: np.ndarray,
    query: np.ndarray,
    decay: float,
    weights: Weights,
) -> np.ndarray:
    def norm(values: np.ndarray) -> np.ndarray:
        span = values.max() - values.min()
        return np.full_like(values, 0.5) if span == 0 else (values - values.min()) / span

    e = embeddings.astype(np.float64)
    q = query.astype(np.float64)
    relevance = (e @ q) / (np.linalg.norm(e, axis=1) * np.linalg.norm(q))
    recency = decay**hours
    return (
        weights.recency * norm(recency)
        + weights.importance * norm(importance.astype(np.float64))
        + weights.relevance * norm(relevance)
    )


@pytest.fixture
def agent(user: User, ville: object) -> Agent:
    simulation = simulation_create_from_base(owner=user, base="base_the_ville_isabella_maria_klaus")
    return simulation.agents.get(name="Isabella Rodriguez")


def _store(agent: Agent, embeddings: np.ndarray, importance: np.ndarray, hours: np.ndarray):
    now = agent.simulation.start_time + timedelta(days=30)
    Memory.objects.filter(agent=agent).delete()
    Memory.objects.bulk_create(
        Memory(
            simulation=agent.simulation,
            agent=agent,
            number=i + 1,
            kind=MemoryKind.OBSERVATION,
            description=f"memory {i}",
            created=now - timedelta(hours=float(hours[i]) + 1),
            last_accessed=now - timedelta(hours=float(hours[i])),
            importance=int(importance[i]),
            embedding=embeddings[i],
        )
        for i in range(len(importance))
    )
    return now


@pytest.mark.django_db
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    n=st.integers(1, 80),
    k=st.integers(1, 12),
    seed=st.integers(0, 2**32 - 1),
    decay=st.sampled_from([0.995, 0.99, 0.9]),
    weights=st.tuples(*[st.floats(0.0, 3.0, allow_nan=False)] * 3),
    hour_scale=st.sampled_from([0.0, 1.0, 24.0, 500.0]),
)
def test_exact_mode_matches_the_oracle(agent, n, k, seed, decay, weights, hour_scale) -> None:
    rng = np.random.default_rng(seed)
    embeddings = rng.normal(size=(n, 384)).astype(np.float32)
    embeddings /= np.linalg.norm(embeddings, axis=1, keepdims=True)
    importance = rng.integers(1, 11, size=n)
    hours = np.round(rng.random(n) * hour_scale, 3)
    query = rng.normal(size=384).astype(np.float32)
    w = Weights(*weights)
    now = _store(agent, embeddings, importance, hours)

    got = memories_retrieve(
        agent_id=agent.pk, query_embedding=query, now=now, decay=decay, weights=w, k=k
    )
    expected = oracle(
        embeddings=embeddings,
        importance=importance,
        hours=hours,
        query=query,
        decay=decay,
        weights=w,
    )
    top = np.sort(expected)[::-1][: min(k, n)]
    assert len(got) == min(k, n)
    # Same scores in the same order; ids agree wherever scores are not tied.
    np.testing.assert_allclose([s.score for s in got], top, atol=1e-5)
    for s in got:
        assert abs(expected[s.number - 1] - s.score) < 1e-5
        assert s.number - 1 in set(np.flatnonzero(expected >= top[-1] - 1e-5))


@pytest.fixture(params=["scored in full", "bounded"])
def scale_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Scale mode scores a small memory stream in full; 0 forces the bounded search."""
    if request.param == "bounded":
        monkeypatch.setattr(retrieval, "SCALE_EXACT_UP_TO", 0)
    return str(request.param)


@pytest.mark.django_db
def test_scale_mode_agrees_with_exact_on_clustered_memories(agent, scale_path) -> None:
    rng = np.random.default_rng(7)
    centres = rng.normal(size=(20, 384))
    labels = rng.integers(0, 20, size=3000)
    embeddings = (centres[labels] + 0.6 * rng.normal(size=(3000, 384))).astype(np.float32)
    embeddings /= np.linalg.norm(embeddings, axis=1, keepdims=True)
    importance = rng.integers(1, 11, size=3000)
    hours = rng.random(3000) * 200
    now = _store(agent, embeddings, importance, hours)
    hits = 0
    for i in range(20):
        query = (centres[i % 20] + 0.6 * rng.normal(size=384)).astype(np.float32)
        kwargs = dict(agent_id=agent.pk, query_embedding=query, now=now, k=10)
        exact = {s.number for s in memories_retrieve(**kwargs, mode=Mode.EXACT)}
        scale = {s.number for s in memories_retrieve(**kwargs, mode=Mode.SCALE)}
        hits += len(exact & scale)
    assert hits / 200 >= 0.95


@pytest.mark.django_db
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    n=st.integers(20, 80),
    k=st.integers(1, 8),
    candidates=st.integers(1, 4),
    seed_per_list=st.integers(1, 4),
    seed=st.integers(0, 2**32 - 1),
    decay=st.sampled_from([0.995, 0.9, 1.0]),
    weights=st.tuples(
        st.sampled_from([0.0, 0.5, 1.0, 3.0]),
        st.sampled_from([0.0, 0.5, 1.0, 3.0]),
        st.sampled_from([0.0, 0.0, 1.0]),
    ),
    hour_scale=st.sampled_from([0.0, 24.0, 500.0, 500.0]),
    importance_levels=st.sampled_from([1, 3, 10, 10]),
)
def test_bounded_scale_mode_is_exact_when_its_bounds_are(
    agent,
    monkeypatch,
    n,
    k,
    candidates,
    seed_per_list,
    seed,
    decay,
    weights,
    hour_scale,
    importance_levels,
) -> None:
    """The bounded search's pruning loses nothing: exact whenever relevance is not
    weighted, or the HNSW candidates hold every memory (so its cosine bounds are exact).
    Small seeds leave most memories to the per-level scans."""
    monkeypatch.setattr(retrieval, "SCALE_EXACT_UP_TO", 0)
    monkeypatch.setattr(retrieval, "SEED_PER_LIST", seed_per_list)
    # The HNSW index keeps the rows earlier examples deleted until a vacuum: the scan must
    # be allowed past them, or its candidates miss memories and the bounds are not exact.
    monkeypatch.setattr(retrieval, "HNSW_SCAN_BUDGET", 10_000_000)
    rng = np.random.default_rng(seed)
    embeddings = rng.normal(size=(n, 384)).astype(np.float32)
    embeddings /= np.linalg.norm(embeddings, axis=1, keepdims=True)
    importance = rng.integers(1, importance_levels + 1, size=n)
    hours = np.round(rng.random(n) * hour_scale, 3)
    query = rng.normal(size=384).astype(np.float32)
    w = Weights(*weights)
    if w.relevance and candidates < n:
        candidates = n
    now = _store(agent, embeddings, importance, hours)

    got = memories_retrieve(
        agent_id=agent.pk,
        query_embedding=query,
        now=now,
        decay=decay,
        weights=w,
        k=k,
        mode=Mode.SCALE,
        candidates=candidates,
    )
    expected = oracle(
        embeddings=embeddings,
        importance=importance,
        hours=hours,
        query=query,
        decay=decay,
        weights=w,
    )
    top = np.sort(expected)[::-1][: min(k, n)]
    assert len(got) == min(k, n)
    np.testing.assert_allclose([s.score for s in got], top, atol=1e-5)
    for s in got:
        assert abs(expected[s.number - 1] - s.score) < 1e-5
