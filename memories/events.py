"""The memory stream's events: a memory is created, memories are touched (accessed),
memories are rated (the model's importance replaces a provisional one, `rating_due`).

All are applied by `memories.projections.MemoryProjection`; the agents projection also
reads `memory.created` and `memory.rated` of what an agent perceives (its importance
counts toward reflection).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TypedDict

from world.eventlog import EventDraft

MEMORY_CREATED = "memory.created"
MEMORY_TOUCHED = "memory.touched"
MEMORY_RATED = "memory.rated"


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
    rating_due: int  # importance is provisional until the `memory.rated` of this step


class MemoryRatedPayload(TypedDict):
    numbers: list[int]
    importance: list[int]  # the model's rating of each
    kinds: list[str]  # of each (what counts toward reflection)


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
    rating_due: int | None = None,
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
    if rating_due is not None:
        payload["rating_due"] = rating_due
    return EventDraft(kind=MEMORY_CREATED, agent=agent, payload=dict(payload))


def memory_touched(*, agent: str, numbers: list[int], at: datetime) -> EventDraft:
    """The memories `numbers` of `agent` were accessed at sim time `at`."""
    payload = MemoryTouchedPayload(numbers=numbers, at=at.isoformat())
    return EventDraft(kind=MEMORY_TOUCHED, agent=agent, payload=dict(payload))


def memory_rated(
    *, agent: str, numbers: list[int], importance: list[int], kinds: list[str]
) -> EventDraft:
    """The model's importance of `agent`'s memories `numbers`, replacing provisional ones."""
    payload = MemoryRatedPayload(numbers=numbers, importance=importance, kinds=kinds)
    return EventDraft(kind=MEMORY_RATED, agent=agent, payload=dict(payload))
