"""The memory stream's events: a memory is created, memories are touched (accessed).

Both are applied by `memories.projections.MemoryProjection`; the agents projection also
reads `memory.created` of what an agent perceives (its importance counts toward
reflection).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TypedDict

from world.eventlog import EventDraft

MEMORY_CREATED = "memory.created"
MEMORY_TOUCHED = "memory.touched"


class _MemoryCreatedRequired(TypedDict):
    kind: str
    description: str
    subject: str
    predicate: str
    object: str
    importance: int
    evidence: list[int]  # the numbers of the memories a reflection cites
    embedding_model: str
    embedding_hash: str  # the key of the vector in the embedding cache


class MemoryCreatedPayload(_MemoryCreatedRequired, total=False):
    source: dict[str, object]  # where it came from: {"from": who told it, ...}


class MemoryTouchedPayload(TypedDict):
    numbers: list[int]
    at: str


def memory_created(
    *,
    agent: str,
    kind: str,
    description: str,
    importance: int,
    subject: str = "",
    predicate: str = "",
    object: str = "",
    evidence: Sequence[int] = (),
    embedding_model: str,
    embedding_hash: str,
    source: Mapping[str, object] | None = None,
) -> EventDraft:
    payload = MemoryCreatedPayload(
        kind=str(kind),
        description=description,
        subject=subject,
        predicate=predicate,
        object=object,
        importance=importance,
        evidence=list(evidence),
        embedding_model=embedding_model,
        embedding_hash=embedding_hash,
    )
    if source:
        payload["source"] = dict(source)
    return EventDraft(kind=MEMORY_CREATED, agent=agent, payload=dict(payload))


def memory_touched(*, agent: str, numbers: list[int], at: datetime) -> EventDraft:
    """The memories `numbers` of `agent` were accessed at sim time `at`."""
    payload = MemoryTouchedPayload(numbers=numbers, at=at.isoformat())
    return EventDraft(kind=MEMORY_TOUCHED, agent=agent, payload=dict(payload))
