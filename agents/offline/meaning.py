"""Judgments by meaning for the offline stand-in: a text is placed among labelled example
statements by the cosine similarity of their embeddings, never by a list of words.

Example sets are data (a JSON file each in the `examples` folder here, written by us, spanning many
kinds of life, work and news): `{"about": "...", "labels": {"<label>": ["statement", ...]}}`.
A text takes the label of its nearest examples (k nearest, similarity-weighted), so a
storm warning, a closed bridge or a chess final is judged as what it means, in a town no
file mentions. The vectors are the memory stream's own (`memories.embeddings`, cached by
text), so a memory's judgment costs no embedding beyond the one it is stored with, except
where a simulation embeds with a billed server: the stand-in then judges with the
in-process default, so its judgments cost no call and never fail with the server. The
examples' vectors are computed once per process (and cached in the database like any
passage). Deterministic for a given embedding model. For the default in-process model
the examples' vectors ship beside their files (`examples/vectors/`, written by `manage.py
stand_in_vectors`), so a new process judges at once instead of embedding about a thousand
examples first (seconds, the first calls of every worker and web process).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path

import numpy as np

from memories.embeddings import Vectors, embed_passages, embedder_in_process

EXAMPLES = Path(__file__).resolve().parent / "examples"
SHIPPED = EXAMPLES / "vectors"


@dataclass(frozen=True)
class ExampleSet:
    """Labelled example statements, in file order."""

    name: str
    texts: tuple[str, ...]
    labels: tuple[str, ...]

    @property
    def label_names(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(self.labels))

    @cached_property
    def digest(self) -> str:
        """What its vectors are computed from (`texts_digest`), once per set: every
        judgment looks its vectors up by it."""
        return texts_digest(self.texts)


@dataclass(frozen=True)
class Judgment:
    """Where a text falls among an example set's labels."""

    label: str  # the label with the highest score
    score: float  # that label's score: similarity-weighted share of the k nearest, 0..1
    nearest: float  # cosine similarity to the single nearest example
    scores: dict[str, float]  # every label's score (labels absent from the k nearest: 0)

    def number(self) -> float:
        """The score-weighted mean of numeric labels (a 1-10 importance, say)."""
        total = sum(self.scores.values()) or 1.0
        return sum(float(label) * share for label, share in self.scores.items()) / total


@cache
def example_set(name: str) -> ExampleSet:
    """An example set by name (its JSON file in the `examples` folder beside this module)."""
    data = json.loads((EXAMPLES / f"{name}.json").read_text(encoding="utf-8"))
    texts: list[str] = []
    labels: list[str] = []
    for label, statements in data["labels"].items():
        for statement in statements:
            texts.append(statement)
            labels.append(str(label))
    return ExampleSet(name=name, texts=tuple(texts), labels=tuple(labels))


_vectors_lock = threading.Lock()
_example_vectors: dict[tuple[str, str, str], Vectors] = {}  # by embedder, set, statements


def _vectors_of(examples: ExampleSet) -> Vectors:
    key = (embedder_in_process().name, examples.name, examples.digest)
    with _vectors_lock:
        found = _example_vectors.get(key)
    if found is None:
        found = _shipped(key[0], examples)
        if found is None:
            found = embed_passages(texts=examples.texts, in_process=True)
        with _vectors_lock:
            _example_vectors[key] = found
    return found


def texts_digest(texts: Sequence[str]) -> str:
    """What shipped vectors were computed from: the example statements, in order."""
    return hashlib.sha256("\x1f".join(texts).encode("utf-8")).hexdigest()


def shipped_path(embedder: str, name: str) -> Path:
    return SHIPPED / embedder.replace(":", "-") / f"{name}.npz"


def _shipped(embedder: str, examples: ExampleSet) -> Vectors | None:
    """The set's shipped vectors, if they were computed by this embedder from these very
    statements (an example edited since is embedded again)."""
    path = shipped_path(embedder, examples.name)
    if not path.is_file():
        return None
    with np.load(path) as data:
        if str(data["digest"]) != examples.digest:
            return None
        found: Vectors = np.asarray(data["vectors"], dtype=np.float32)
    return found


def example_sets() -> list[ExampleSet]:
    return [example_set(path.stem) for path in sorted(EXAMPLES.glob("*.json"))]


def example_vectors_stale() -> list[str]:
    """The example sets whose shipped vectors are missing or from other statements."""
    embedder = embedder_in_process().name
    return [e.name for e in example_sets() if _shipped(embedder, e) is None]


def example_vectors_write() -> list[Path]:
    """Compute every example set's vectors with the in-process embedder and ship them."""
    embedder = embedder_in_process().name
    written = []
    for examples in example_sets():
        path = shipped_path(embedder, examples.name)
        path.parent.mkdir(parents=True, exist_ok=True)
        found = embed_passages(texts=examples.texts, in_process=True)
        np.savez(path, vectors=found, digest=np.array(examples.digest))
        written.append(path)
    return written


def vectors(texts: Sequence[str]) -> Vectors:
    """The memory stream's vectors of `texts` (passages), shape (len(texts), dims)."""
    return embed_passages(texts=list(texts), in_process=True)


def judge(texts: Sequence[str], examples: ExampleSet, *, k: int = 5) -> list[Judgment]:
    """Each text's judgment: the similarity-weighted vote of its k nearest examples."""
    if not texts:
        return []
    return judge_vectors(vectors(texts), examples, k=k)


def judge_vectors(found: Vectors, examples: ExampleSet, *, k: int = 5) -> list[Judgment]:
    """As `judge`, for vectors already had (the memory's own)."""
    known = _vectors_of(examples)
    similarities = np.asarray(found, dtype=np.float32) @ known.T
    k = max(1, min(k, len(examples.texts)))
    judgments = []
    for row in similarities:
        # Ties broken by file order, so a judgment never depends on sort stability.
        nearest = np.lexsort((np.arange(len(row)), -row))[:k]
        weights = np.clip(row[nearest], 1e-6, None)
        scores: dict[str, float] = {}
        for index, weight in zip(nearest, weights, strict=True):
            label = examples.labels[int(index)]
            scores[label] = scores.get(label, 0.0) + float(weight)
        total = sum(scores.values())
        scores = {label: share / total for label, share in scores.items()}
        label = max(scores, key=lambda name: (scores[name], -examples.labels.index(name)))
        best = float(row[nearest[0]])
        judgments.append(Judgment(label=label, score=scores[label], nearest=best, scores=scores))
    return judgments


def similarity(texts: Sequence[str], others: Sequence[str]) -> Vectors:
    """Cosine similarities of each text to each other text, shape (len(texts), len(others))."""
    if not texts or not others:
        return np.zeros((len(texts), len(others)), dtype=np.float32)
    result: Vectors = vectors(texts) @ vectors(others).T
    return result
