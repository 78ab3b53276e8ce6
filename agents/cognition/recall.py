"""Memory use in a step: retrieval, the statements it finds, what the agent finds most
important, and remembering this step's notes (rated in one `importance_many` call)."""

from __future__ import annotations

from agents.cognition.mind import Mind
from agents.cognition.ratings import importance_delay, importance_rate_many
from agents.cognition.selectors import memory_descriptions_get, memory_important_list
from agents.offline.judgments import importances
from memories.embeddings import embed_query
from memories.retrieval import memories_retrieve, weights_for
from memories.services import MemoryDraft, memory_event_drafts, memory_touch_drafts
from world.models import Agent


def retrieve(
    mind: Mind, agent: Agent, query: str, k: int = 5, skip: tuple[str, ...] = ()
) -> list[str]:
    """The descriptions of `agent`'s `k` memories most relevant to `query` now (the paper's
    recency, importance and relevance), leaving out the kinds in `skip`; each is touched
    (its recency renewed)."""
    exclude = [*skip, *(["observation"] if "no_observation_retrieval" in mind.ablations else [])]
    scored = memories_retrieve(
        agent_id=agent.pk,
        query_embedding=embed_query(text=query, simulation=mind.simulation),
        now=mind.now,
        decay=agent.recency_decay,
        weights=weights_for(mind.simulation.config),
        k=k,
        exclude_kinds=exclude,
    )
    mind.touched.setdefault(agent.name, set()).update(s.number for s in scored)
    descriptions = memory_descriptions_get(ids=[s.memory_id for s in scored])
    return [descriptions[s.memory_id] for s in scored]


def statements(
    mind: Mind, agent: Agent, *queries: str, k: int = 5, skip: tuple[str, ...] = ()
) -> list[str]:
    """What the queries retrieve, each statement once, in the order found."""
    seen: list[str] = []
    for query in queries:
        for description in retrieve(mind, agent, query, k, skip):
            if description not in seen:
                seen.append(description)
    return seen


def important(mind: Mind, agent: Agent, k: int = 1) -> list[str]:
    """What the agent finds most important lately: the one thought it would tell anyone,
    after a happening it means to go to (with two, hearsay travelled four hops and the
    Ville's party reached 20 of 24, the paper's 12). Read once per agent and step (a
    conversation asks for it at every line)."""
    if agent.name not in mind.news:
        mind.news[agent.name] = memory_important_list(agent=agent, k=k, now=mind.now)
    return mind.news[agent.name]


def remember(mind: Mind) -> None:
    """Emit this step's new memories (and the touches). Each owner's step rates them
    `importance_delay` steps later (`ratings`); with no delay, one call rates them now."""
    notes = mind.notes
    if notes:
        delay = importance_delay(mind.simulation)
        descriptions = [n.description for n in notes]
        if delay:
            scores = importances(descriptions)  # the stand-in's, until the rating
        else:
            scores = importance_rate_many(mind.simulation, mind.agent, descriptions)
        drafts = [
            MemoryDraft(
                agent=n.agent,
                kind=n.kind,
                description=n.description,
                importance=score,
                subject=n.spo[0],
                predicate=n.spo[1],
                object=n.spo[2],
                source=n.source,
                rating_due=mind.step + 1 + delay if delay else None,  # a log step
            )
            for n, score in zip(notes, scores, strict=True)
        ]
        # The engine embeds the memories of all agents of a shard in one batch.
        events = memory_event_drafts(simulation=mind.simulation, drafts=drafts, embed=False)
        for note, event in zip(notes, events, strict=True):
            if note.conversation:
                event.payload["conversation"] = note.conversation
        mind.out += events
    for agent, numbers in sorted(mind.touched.items()):
        mind.out += memory_touch_drafts(agent=agent, numbers=numbers, at=mind.now)
