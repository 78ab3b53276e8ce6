"""The contenders beside `memories_retrieve`: a NumPy brute force of the paper's formula
(binary COPY fetch, then compute) and a port of the reference implementation's loop."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np
from django.db import connection
from numpy import dot
from numpy.linalg import norm

from bench.retrieval.data import DECAY, DIM, NOW, PG_EPOCH, K
from bench.retrieval.load import COPY_HEADER
from memories.retrieval import PRESETS

WEIGHTS = PRESETS["paper"]


@dataclass
class Fetched:
    embeddings: np.ndarray  # float32 (n, DIM)
    norms: np.ndarray
    importance: np.ndarray  # float64
    accessed_us: np.ndarray  # int64
    number: np.ndarray


FETCH_ROW = np.dtype(
    [
        ("fields", ">i2"),
        ("l_embedding", ">i4"),
        ("dim", ">i2"),
        ("unused", ">i2"),
        ("embedding", ">f4", (DIM,)),
        ("l_importance", ">i4"),
        ("importance", ">i2"),
        ("l_accessed", ">i4"),
        ("accessed", ">i8"),
        ("l_number", ">i4"),
        ("number", ">i4"),
    ]
)


def numpy_fetch(agent_id: int) -> Fetched:
    """An agent's memories into NumPy: binary COPY parsed as one record array (the
    fastest way out of Postgres; an ORM or row-by-row fetch is several times slower)."""
    sql = (
        "COPY (SELECT embedding, importance, last_accessed, number FROM memories_memory "
        f"WHERE agent_id = {int(agent_id)}) TO STDOUT BINARY"
    )
    with connection.cursor() as cursor, cursor.cursor.copy(sql) as copy:
        payload = b"".join(bytes(chunk) for chunk in copy)
    rows = np.frombuffer(
        payload,
        dtype=FETCH_ROW,
        offset=len(COPY_HEADER),
        count=(len(payload) - len(COPY_HEADER) - 2) // FETCH_ROW.itemsize,
    )
    embeddings = rows["embedding"].astype(np.float32)
    return Fetched(
        embeddings=embeddings,
        norms=np.linalg.norm(embeddings, axis=1),
        importance=rows["importance"].astype(np.float64),
        accessed_us=rows["accessed"].astype(np.int64),
        number=rows["number"].astype(np.int64),
    )


def _minmax(values: np.ndarray) -> np.ndarray:
    low, high = values.min(), values.max()
    return np.full_like(values, 0.5) if high == low else (values - low) / (high - low)


NOW_US = int((NOW - PG_EPOCH).total_seconds() * 1e6)


def numpy_retrieve(data: Fetched, query: np.ndarray, k: int = K) -> tuple[np.ndarray, np.ndarray]:
    """Top-k (numbers, scores) by the paper's formula; ties by number, as in SQL."""
    relevance = (data.embeddings @ query).astype(np.float64) / (data.norms * np.linalg.norm(query))
    hours = np.maximum(NOW_US - data.accessed_us, 0) / 3.6e9
    score = (
        WEIGHTS.recency * _minmax(DECAY**hours)
        + WEIGHTS.importance * _minmax(data.importance)
        + WEIGHTS.relevance * _minmax(relevance)
    )
    k = min(k, len(score))
    top = np.argpartition(-score, k - 1)[:k]
    top = top[np.lexsort((-data.number[top], -score[top]))]
    return data.number[top], score[top]


@dataclass
class Node:
    """A memory as the reference keeps it (ConceptNode): fields, embedding by key."""

    node_id: int
    last_accessed: datetime
    poignancy: int
    embedding_key: str


def reference_memory(data: Fetched) -> tuple[list[Node], dict[str, list[float]]]:
    """The reference's in-memory form: node objects, embeddings as lists (from JSON)."""
    nodes, embeddings = [], {}
    for i in range(len(data.number)):
        key = f"memory {int(data.number[i])}"
        accessed = PG_EPOCH + timedelta(microseconds=int(data.accessed_us[i]))
        nodes.append(Node(int(data.number[i]), accessed, int(data.importance[i]), key))
        embeddings[key] = data.embeddings[i].tolist()
    return nodes, embeddings


def _cos_sim(a: list[float], b: list[float]) -> float:
    return float(dot(a, b) / (norm(a) * norm(b)))  # numpy on lists, per node, as there


def _normalize(values: dict[int, float]) -> dict[int, float]:
    low, high = min(values.values()), max(values.values())
    if high == low:
        return dict.fromkeys(values, 0.5)
    return {key: (v - low) / (high - low) for key, v in values.items()}


def reference_retrieve(
    nodes: list[Node], embeddings: dict[str, list[float]], query: list[float], k: int = K
) -> dict[int, float]:
    """A port of the reference `new_retrieve` for one focal point: loops over nodes
    building one dict per term, min-max normalises them, sums and sorts. Recency is the
    paper's decay per hour since last access (the reference uses decay ** rank), the
    weights are ours, and its debug print of every node is left out."""
    nodes = [n for _, n in sorted(((n.last_accessed, n) for n in nodes), key=lambda p: p[0])]
    recency = {}
    for node in nodes:
        hours = max((NOW - node.last_accessed).total_seconds(), 0) / 3600
        recency[node.node_id] = DECAY**hours
    recency = _normalize(recency)
    importance = _normalize({node.node_id: float(node.poignancy) for node in nodes})
    relevance = _normalize(
        {node.node_id: _cos_sim(embeddings[node.embedding_key], query) for node in nodes}
    )
    master = {
        key: WEIGHTS.recency * recency[key]
        + WEIGHTS.relevance * relevance[key]
        + WEIGHTS.importance * importance[key]
        for key in recency
    }
    master = dict(sorted(master.items(), key=lambda item: item[1], reverse=True))
    return dict(list(master.items())[:k])
