"""Writes on the memory stream: memories are created and touched through the event log."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from world.eventlog import EventDraft, events_append
from world.models import Event, Simulation

from .embeddings import (
    embedder_get,
    embedding_model_claim,
    passages_embed_ahead,
    passages_stored,
    text_hash,
)
from .events import MEMORY_CREATED, memory_created, memory_touched
from .models import MemoryKind


@dataclass(frozen=True)
class MemoryDraft:
    """A memory to be made; `evidence` holds the numbers of the memories a reflection cites."""

    agent: str
    kind: MemoryKind
    description: str
    importance: int
    subject: str = ""
    predicate: str = ""
    object: str = ""
    evidence: tuple[int, ...] = field(default_factory=tuple)
    source: dict[str, Any] = field(default_factory=dict)  # {"from": who told it, ...}
    rating_due: int | None = None  # `importance` is provisional until this step's rating

    def __post_init__(self) -> None:
        if not 1 <= self.importance <= 10:
            raise ValueError(f"importance must be 1..10, got {self.importance}")
        if self.evidence and self.kind != MemoryKind.REFLECTION:
            raise ValueError("only reflections cite evidence")


def memory_event_drafts(
    *, simulation: Simulation, drafts: Sequence[MemoryDraft], embed: bool = True
) -> list[EventDraft]:
    """Turn memory drafts into events, in order, embedding them through the cache.

    With `embed=False` the caller must call `memories_embed` on the events before they
    are appended (the tick engine does, once for all the agents of a shard)."""
    if not drafts:
        return []
    if embed:
        passages_stored(texts=[d.description for d in drafts], simulation=simulation)
    else:
        embedding_model_claim(simulation=simulation, model=embedder_get().name)
    return [
        memory_created(
            agent=d.agent,
            kind=d.kind,
            description=d.description,
            subject=d.subject,
            predicate=d.predicate,
            object=d.object,
            importance=d.importance,
            evidence=d.evidence,
            embedding_model=simulation.embedding_model,
            embedding_hash=text_hash(d.description),
            source=d.source,
            rating_due=d.rating_due,
        )
        for d in drafts
    ]


def memories_embed(*, simulation: Simulation, events: Sequence[EventDraft]) -> None:
    """Make sure the embeddings of these `memory.created` events are in the cache."""
    texts = [e.payload["description"] for e in events if e.kind == MEMORY_CREATED]
    if texts:
        passages_stored(texts=texts, simulation=simulation)


def memories_embed_ahead(*, events: Sequence[EventDraft]) -> None:
    """Start embedding these `memory.created` events' descriptions in the background, while
    the step they belong to still waits on the model (see `passages_embed_ahead`)."""
    texts = [e.payload["description"] for e in events if e.kind == MEMORY_CREATED]
    if texts:
        passages_embed_ahead(texts)


def memory_touch_drafts(*, agent: str, numbers: Iterable[int], at: datetime) -> list[EventDraft]:
    """Retrieval's side effect: the returned memories were accessed at sim time `at`."""
    numbers = sorted(set(numbers))
    if not numbers:
        return []
    return [memory_touched(agent=agent, numbers=numbers, at=at)]


def memories_create(
    *, simulation: Simulation, drafts: Sequence[MemoryDraft], step: int | None = None
) -> list[Event]:
    return events_append(
        simulation=simulation,
        drafts=memory_event_drafts(simulation=simulation, drafts=drafts),
        step=step,
    )


def memories_touch(
    *, simulation: Simulation, agent: str, numbers: Iterable[int], at: datetime
) -> list[Event]:
    return events_append(
        simulation=simulation, drafts=memory_touch_drafts(agent=agent, numbers=numbers, at=at)
    )
