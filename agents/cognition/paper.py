"""The paper's cognition (Park et al. 2023, section 4): plan, perceive, react, converse, act.

One agent, one step. Everything the agent decides becomes event drafts: new memories
(observations, plans, conversations, rated in one `importance_many` call per step), plan
rows, its current action, object states and conversations. Model calls happen here, in
the agent-step task, never inside the tick's commit.

Per agent and sim day: one summary, one day plan, one hourly schedule; per waking hour
block one decomposition into 5-15 minute actions (lazily, when the block starts); per new
person seen, one reaction; per conversation, a line per turn and a summary.
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from functools import cache
from typing import Any

from agents.events import (
    AGENT_ACTING,
    AGENT_CHAT_COOLDOWN,
    AGENT_DAY_PLANNED,
    AGENT_LEARNED,
    AGENT_MOVED,
    AGENT_PERCEIVED,
    AGENT_SUMMARIZED,
    AGENT_THOUGHT_HANDLED,
    CONVERSATION_HELD,
    OBJECT_STATE,
    PLAN_MADE,
    PLAN_REVISED,
)
from llm.inputs import agent_identity
from llm.port import llm_run
from memories.embeddings import embed_query
from memories.models import Memory, MemoryKind
from memories.retrieval import memories_retrieve, weights_for
from memories.services import MemoryDraft, memory_event_drafts, memory_touch_drafts
from world.eventlog import EventDraft
from world.models import Agent, Location
from world.paths import NotWalkable, UnknownAddress, Unreachable, path_to_location

from ..models import PlanItem, PlanLevel
from . import StepContext
from .prompts import (
    CONVERSATION_SUMMARY,
    CONVERSE_LINE,
    DAY_PLAN,
    DECOMPOSE,
    HOURLY_SCHEDULE,
    IMPORTANCE_MANY,
    REACT,
    RESPOND_EVENT,
    SUMMARY,
    Line,
)

MAX_ROUNDS = 8  # a conversation ends by decision or after 8 rounds
COOLDOWN_MINUTES = 60  # the same pair does not talk again within a sim hour
RESPITE_MINUTES = 30  # nor does either start another conversation within half an hour
ANYONE = "*"  # the chat_cooldowns key of the respite
SINGLE_OCCUPANCY = ("bed", "shower", "toilet", "bathtub")
SLEEP_WORDS = ("sleep",)


@cache
def town_addresses(town_id: int) -> frozenset[str]:
    return frozenset(Location.objects.filter(town_id=town_id).values_list("address", flat=True))


@dataclass
class Block:
    """An hour block of the plan: what, when and where (sector, arena)."""

    description: str
    start: datetime
    minutes: int
    sector: str
    arena: str
    number: int | None = None  # the PlanItem's, once it exists

    @property
    def end(self) -> datetime:
        return self.start + timedelta(minutes=self.minutes)

    @property
    def sleeping(self) -> bool:
        return any(word in self.description.lower() for word in SLEEP_WORDS)


@dataclass
class Note:
    """A memory to make this step; importance is rated for all of them at once."""

    agent: str
    kind: MemoryKind
    description: str
    spo: tuple[str, str, str] = ("", "", "")
    conversation: str = ""


@dataclass
class _Mind:
    context: StepContext
    agent: Agent
    out: list[EventDraft] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    touched: dict[str, set[int]] = field(default_factory=dict)
    blocks: list[Block] | None = None
    thought: str = ""
    news: dict[str, list[str]] = field(default_factory=dict)
    objects_seen: list[tuple[str, str, str]] = field(default_factory=list)  # object, state, addr

    @property
    def name(self) -> str:
        return self.agent.name

    @property
    def now(self) -> datetime:
        return self.context.now

    @property
    def step(self) -> int:
        return self.context.step

    @property
    def ablations(self) -> set[str]:
        return set(self.context.simulation.config.get("ablations", []))

    def emit(self, kind: str, payload: dict[str, Any], agent: str | None = None) -> None:
        self.out.append(EventDraft(kind=kind, agent=agent or self.name, payload=payload))

    # --- the step ---------------------------------------------------------------------

    def run(self) -> list[EventDraft]:
        if self.agent.user_controlled:
            # A user moves it (through the API); it perceives and remembers like anyone.
            self.perceive()
            if self.agent.path:
                self.emit(AGENT_MOVED, {"tile": [int(v) for v in self.agent.path[0]]})
            self.remember()
            return self.out
        if self.agent.plan_date != self.now.date():
            self.plan_day()
        replan = self.take_thought()
        people = self.perceive()
        reacted = False
        if "sleep" not in self.agent.action.lower():
            # Something a user set happening to an object (a fire) comes first: it breaks
            # off a conversation too.
            reacted = self.respond_to_objects()
        if not reacted and people and self.free(self.agent):
            reacted = self.react(people[0])
        if not reacted:
            self.act(replan=replan)
        self.remember()
        return self.out

    def take_thought(self) -> bool:
        """The inner voice: a new thought re-plans the rest of the day from now."""
        thought = self.agent.pending_thought
        if not thought:
            return False
        self.emit(PLAN_REVISED, {"from": self.now.isoformat()})
        self.emit(AGENT_THOUGHT_HANDLED, {})
        self.thought = thought
        return True

    def free(self, agent: Agent) -> bool:
        """Awake and not in a conversation."""
        chatting = agent.chatting_with and agent.busy_until_step > self.step
        return not chatting and "sleep" not in agent.action.lower()

    # --- memory -------------------------------------------------------------------------

    def retrieve(self, agent: Agent, query: str, k: int = 5) -> list[Memory]:
        exclude = ["observation"] if "no_observation_retrieval" in self.ablations else []
        scored = memories_retrieve(
            agent_id=agent.pk,
            query_embedding=embed_query(text=query, simulation=self.context.simulation),
            now=self.now,
            decay=agent.recency_decay,
            weights=weights_for(self.context.simulation.config),
            k=k,
            exclude_kinds=exclude,
        )
        self.touched.setdefault(agent.name, set()).update(s.number for s in scored)
        rows = Memory.objects.only("id", "description").in_bulk([s.memory_id for s in scored])
        return [rows[s.memory_id] for s in scored]

    def statements(self, agent: Agent, *queries: str, k: int = 5) -> list[str]:
        seen: list[str] = []
        for query in queries:
            for memory in self.retrieve(agent, query, k):
                if memory.description not in seen:
                    seen.append(memory.description)
        return seen

    def important(self, agent: Agent, k: int = 2) -> list[str]:
        """What the agent finds most important lately: what it would tell anyone. Read once
        per agent and step (a conversation asks for it at every line)."""
        if agent.name not in self.news:
            self.news[agent.name] = list(
                Memory.objects.filter(agent=agent, importance__gte=6)
                .exclude(kind=MemoryKind.CONVERSATION)
                .order_by("-importance", "-number")
                .values_list("description", flat=True)[:k]
            )
        return self.news[agent.name]

    def remember(self) -> None:
        """Rate this step's new memories in one call and emit them (and the touches)."""
        if self.notes:
            rated = llm_run(
                task=IMPORTANCE_MANY,
                inputs={
                    "agent_name": self.name,
                    "agent_identity": agent_identity(self.agent),
                    "memories": [f"{i}. {n.description}" for i, n in enumerate(self.notes, 1)],
                },
                simulation=self.context.simulation,
                agent=self.agent,
            )
            scores = (rated.importance + [5] * len(self.notes))[: len(self.notes)]
            drafts = [
                MemoryDraft(
                    agent=n.agent,
                    kind=n.kind,
                    description=n.description,
                    importance=score,
                    subject=n.spo[0],
                    predicate=n.spo[1],
                    object=n.spo[2],
                )
                for n, score in zip(self.notes, scores, strict=True)
            ]
            # The engine embeds the memories of all agents of a shard in one batch.
            events = memory_event_drafts(
                simulation=self.context.simulation, drafts=drafts, embed=False
            )
            for note, event in zip(self.notes, events, strict=True):
                if note.conversation:
                    event.payload["conversation"] = note.conversation
            self.out += events
        for agent, numbers in sorted(self.touched.items()):
            self.out += memory_touch_drafts(agent=agent, numbers=numbers, at=self.now)

    # --- planning -----------------------------------------------------------------------

    def places_text(self) -> str:
        world = self.known()
        return "\n".join(f"{sector}: {', '.join(arenas)}" for sector, arenas in world.items())

    def summary(self) -> str:
        today = self.now.date()
        if self.agent.summary and self.agent.summary_date == today:
            return self.agent.summary
        name = self.name
        result = llm_run(
            task=SUMMARY,
            inputs={
                "agent_name": name,
                "agent_identity": agent_identity(self.agent),
                "statements": self.statements(
                    self.agent,
                    f"{name}'s core characteristics",
                    f"{name}'s current daily occupation",
                    f"{name}'s feeling about recent progress in life",
                    k=4,
                ),
            },
            simulation=self.context.simulation,
            agent=self.agent,
        )
        self.emit(AGENT_SUMMARIZED, {"summary": result.summary, "date": today.isoformat()})
        self.agent.summary, self.agent.summary_date = result.summary, today
        return result.summary

    def yesterday(self) -> str:
        last = (
            Memory.objects.filter(agent=self.agent, kind=MemoryKind.PLAN)
            .order_by("-number")
            .values_list("description", flat=True)
            .first()
        )
        return last or "This is the first day of the simulation."

    def plan_day(self) -> None:
        today = self.now.date()
        midnight = datetime.combine(today, datetime.min.time(), tzinfo=self.now.tzinfo)
        self.emit(AGENT_DAY_PLANNED, {"date": today.isoformat()})
        if "no_planning" in self.ablations:
            self.blocks = []
            return
        common = {
            "agent_name": self.name,
            "summary": self.summary(),
            "living_area": self.agent.living_area,
            "places": self.places_text(),
        }
        plan = llm_run(
            task=DAY_PLAN,
            inputs={
                **common,
                "daily_plan_requirement": self.agent.daily_plan_requirement or "none",
                "lifestyle": self.agent.lifestyle,
                "yesterday": self.yesterday(),
                "date": today.strftime("%A %B %d, %Y"),
            },
            simulation=self.context.simulation,
            agent=self.agent,
        )
        day_text = [f"{i.start} ({i.duration_minutes} min): {i.description}" for i in plan.items]
        schedule = llm_run(
            task=HOURLY_SCHEDULE,
            inputs={**common, "day_plan": day_text},
            simulation=self.context.simulation,
            agent=self.agent,
        )
        items: list[dict[str, Any]] = []
        day_starts = []
        for item in plan.items:
            start = midnight + _minutes(item.start)
            day_starts.append(start)
            items.append(_plan_item(PlanLevel.DAY, item.description, start, item.duration_minutes))
        self.blocks = []
        for block in schedule.blocks:
            start = midnight + _minutes(block.start)
            sector, arena = self.known_arena(block.sector, block.arena)
            parent = max((i for i, s in enumerate(day_starts) if s <= start), default=0)
            entry = _plan_item(PlanLevel.HOUR, block.description, start, block.duration_minutes)
            entry.update(address=self.address(sector, arena), parent_index=parent)
            items.append(entry)
            self.blocks.append(
                Block(block.description, start, block.duration_minutes, sector, arena)
            )
        self.emit(PLAN_MADE, {"items": items})
        summary = "; ".join(f"{i.start} {i.description}" for i in plan.items)
        self.notes.append(
            Note(
                self.name,
                MemoryKind.PLAN,
                f"This is {self.name}'s plan for {today:%A %B %d}: {summary}",
            )
        )

    def current_block(self) -> Block | None:
        if self.blocks is not None:
            blocks = self.blocks
        else:
            rows = PlanItem.objects.filter(
                agent=self.agent,
                level=PlanLevel.HOUR,
                superseded=False,
                start__lte=self.now,
                start__gt=self.now - timedelta(days=1),
            ).order_by("-start", "-number")
            blocks = []
            for row in rows[:1]:
                sector, arena = _sector_arena(row.address)
                blocks.append(
                    Block(
                        row.description, row.start, row.duration_minutes, sector, arena, row.number
                    )
                )
        for block in blocks:
            if block.start <= self.now < block.end:
                return block
        if "no_planning" in self.ablations or not blocks:
            here = self.context.arena_at(self.agent.tile) or self.agent.living_area
            sector, arena = _sector_arena(here)
            start = self.now.replace(minute=0, second=0)
            return Block(f"going about {self.name}'s day", start, 60, sector, arena)
        return None

    # --- places ---------------------------------------------------------------------------

    def known(self) -> dict[str, dict[str, list[str]]]:
        world: dict[str, dict[str, list[str]]] = next(iter(self.agent.spatial_memory.values()), {})
        return world

    def known_arena(self, sector: str, arena: str) -> tuple[str, str]:
        """The nearest (sector, arena) the agent knows: never a place it does not know."""
        known = self.known()
        if sector not in known:
            match = difflib.get_close_matches(sector, list(known), n=1, cutoff=0.0)
            sector = match[0] if match else _sector_arena(self.agent.living_area)[0]
        arenas = known.get(sector) or {}
        if arena not in arenas:
            match = difflib.get_close_matches(arena, list(arenas), n=1, cutoff=0.0)
            arena = match[0] if match else ""
        if not arena:
            return _sector_arena(self.agent.living_area)
        return sector, arena

    def address(self, sector: str, arena: str, obj: str = "") -> str:
        world = next(iter(self.agent.spatial_memory), self.context.town.world_name)
        parts = [world, sector, arena] + ([obj] if obj else [])
        return ":".join(parts)

    def objects_in(self, sector: str, arena: str) -> list[str]:
        return list(self.known().get(sector, {}).get(arena, []))

    def object_address(self, block: Block, wanted: str) -> str:
        """An object of the block's arena that the agent knows and the town has."""
        objects = self.objects_in(block.sector, block.arena)
        addresses = town_addresses(self.context.town.pk)
        candidates = [o for o in objects if self.address(block.sector, block.arena, o) in addresses]
        match = difflib.get_close_matches(wanted, candidates, n=1, cutoff=0.0)
        if match:
            return self.address(block.sector, block.arena, match[0])
        return self.address(block.sector, block.arena)

    # --- acting ---------------------------------------------------------------------------

    def act(self, replan: bool = False) -> None:
        agent = self.agent
        if agent.chatting_with and agent.busy_until_step > self.step:
            return
        if agent.path and not replan:
            self.emit(AGENT_MOVED, {"tile": [int(v) for v in agent.path[0]]})
            return
        if self.step < agent.busy_until_step and not replan:
            return
        block = self.current_block()
        if block is None:
            return
        if agent.action_address and self.context.object_states.get(agent.action_address):
            self.emit(OBJECT_STATE, {"address": agent.action_address, "state": "idle"})
        if block.sleeping:
            self.start_action(
                block, "sleeping", block.end, "bed", "😴", [self.name, "is", "sleeping"], "in use"
            )
            return
        action = self.next_action(block, fresh=replan)
        if action is not None:
            self.start_action(block, *action)

    def next_action(
        self, block: Block, fresh: bool = False
    ) -> tuple[str, datetime, str, str, list[str], str] | None:
        """The planned action covering now, decomposing the block from now if needed."""
        if block.number is not None and not fresh:
            rows = PlanItem.objects.filter(
                agent=self.agent, parent__number=block.number, superseded=False
            ).order_by("start", "number")
            for row in rows:
                end = row.start + timedelta(minutes=row.duration_minutes)
                if row.start <= self.now < end:
                    spo = [row.subject, row.predicate, row.object]
                    return row.description, end, row.address, row.emoji, spo, ""
        start = self.now.replace(second=0, microsecond=0)
        minutes = max(5, math.ceil((block.end - start).total_seconds() / 60))
        objects = self.objects_in(block.sector, block.arena)
        result = llm_run(
            task=DECOMPOSE,
            inputs={
                "agent_name": self.name,
                "summary": self.summary(),
                "start": start.strftime("%H:%M"),
                "duration_minutes": minutes,
                "block": block.description,
                "arena": f"{block.sector}: {block.arena}",
                "objects": ", ".join(objects) or "none",
                "context": f"{self.name} is at {self.context.arena_at(self.agent.tile)}."
                + (f" {self.name} just thought: {self.thought}" if self.thought else ""),
            },
            simulation=self.context.simulation,
            agent=self.agent,
        )
        items, when, first = [], start, None
        for action in result.actions:
            address = self.object_address(block, action.object)
            item = _plan_item(PlanLevel.ACTION, action.description, when, action.duration_minutes)
            item.update(
                address=address,
                emoji=action.emoji,
                spo=action.triple,
                parent_start=block.start.isoformat(),
            )
            items.append(item)
            end = when + timedelta(minutes=action.duration_minutes)
            if first is None and when <= self.now < end:
                first = (
                    action.description,
                    end,
                    address,
                    action.emoji,
                    action.triple,
                    action.object_state,
                )
            when = end
        self.emit(PLAN_MADE, {"items": items})
        return first

    def start_action(
        self,
        block: Block,
        description: str,
        end: datetime,
        where: str,
        emoji: str,
        spo: list[str],
        object_state: str,
    ) -> None:
        address = where if ":" in where else self.object_address(block, where)
        occupant = self.context.occupants.get(address)
        if occupant and occupant != self.name and _single(address):
            # Someone is using it: wait a minute and look again.
            end, description, emoji = (
                self.now + timedelta(minutes=1),
                f"waiting to use the {address.rsplit(':', 1)[-1]}",
                "⏳",
            )
            address, object_state = self.context.arena_at(self.agent.tile) or address, ""
        try:
            path = path_to_location(town=self.context.town, start=self.agent.tile, address=address)
        except (Unreachable, UnknownAddress, NotWalkable):
            path = [self.agent.tile]
        seconds = self.context.simulation.sec_per_step
        end_step = self.step + max(1, math.ceil((end - self.now).total_seconds() / seconds))
        self.emit(
            AGENT_ACTING,
            {
                "action": description,
                "emoji": emoji,
                "address": address,
                "spo": spo,
                "start_step": self.step,
                "end_step": end_step,
                "path": [list(tile) for tile in path[1:]],
            },
        )
        if object_state and address.count(":") == 3:
            self.emit(OBJECT_STATE, {"address": address, "state": object_state})

    # --- perceiving and reacting ----------------------------------------------------------

    def perceive(self) -> list[Agent]:
        """New events within the vision radius in the same arena, nearest first, up to the
        attention bandwidth; what is among the last `retention` observations is skipped."""
        agent, context = self.agent, self.context
        here = context.arena_at(agent.tile)
        if not here:
            return []
        radius = agent.vision_radius
        near: list[tuple[int, str, str, Agent | None]] = []
        seen_objects: set[str] = set()
        for x, y, name in context.objects_by_arena.get(here, []):
            if max(abs(x - agent.tile_x), abs(y - agent.tile_y)) <= radius:
                seen_objects.add(name)
                state = context.object_states.get(f"{here}:{name}")
                if state and state != "idle":
                    d = (x - agent.tile_x) ** 2 + (y - agent.tile_y) ** 2
                    near.append((d, f"{name} is {state}", name, None))
                    if not context.object_setters[f"{here}:{name}"][1]:
                        # Not the doing of a resident's own action ("in use"), but changed
                        # in words by a user (a fire): something to respond to.
                        self.objects_seen.append((name, state, f"{here}:{name}"))
        for other in context.agents_by_arena.get(here, []):
            if other.name == agent.name:
                continue
            dx, dy = other.tile_x - agent.tile_x, other.tile_y - agent.tile_y
            if max(abs(dx), abs(dy)) <= radius:  # agents_by_arena: all in `here`
                doing = other.action or "idle"
                near.append((dx * dx + dy * dy, f"{other.name} is {doing}", other.name, other))
        near.sort(key=lambda n: (n[0], n[1]))
        attended: list[tuple[str, str, Agent | None]] = []
        for _, text, subject, who in near:
            if text not in [a[0] for a in attended]:
                attended.append((text, subject, who))
        # A resident's status is news unless among the latest distinct observations (a
        # crowd must not make it news again each step); an object's state unless among
        # the last `retention` (the reference rule), so a stove on fire again is news.
        people = set(agent.recent_observations)
        objects = set(agent.recent_observations[-agent.retention :] if agent.retention else [])
        new = [
            a
            for a in attended[: agent.attention_bandwidth]
            if a[0] not in (people if a[2] is not None else objects)
        ]
        if new:
            self.emit(AGENT_PERCEIVED, {"observations": [text for text, _, _ in new]})
            for text, subject, _ in new:
                rest = text[len(subject) + 4 :]
                self.notes.append(
                    Note(self.name, MemoryKind.OBSERVATION, text, (subject, "is", rest))
                )
        self.learn(here, seen_objects)
        fresh = {text for text, _, _ in new}
        self.objects_seen = [o for o in self.objects_seen if f"{o[0]} is {o[1]}" in fresh]
        return [who for _, _, who in new if who is not None]

    def respond_to_objects(self) -> bool:
        """Deal with something newly seen happening to an object (a burning stove)."""
        for name, state, address in self.objects_seen:
            holder = self.context.occupants.get(address)
            if holder and holder != self.name:
                continue  # someone is using it: that is what it is doing
            response = llm_run(
                task=RESPOND_EVENT,
                inputs={
                    "agent_name": self.name,
                    "summary": self.summary(),
                    "time": self.now.strftime("%H:%M"),
                    "action": self.agent.action or "idle",
                    "object": name,
                    "state": state,
                },
                simulation=self.context.simulation,
                agent=self.agent,
            )
            if not response.respond:
                continue
            here = self.context.arena_at(self.agent.tile)
            sector, arena = _sector_arena(here)
            block = Block(response.action, self.now, 5, sector, arena)
            self.emit(PLAN_REVISED, {"from": self.now.isoformat()})
            self.start_action(
                block,
                response.action,
                self.now + timedelta(minutes=5),
                address,
                response.emoji or "❗",
                [self.name, response.action.split()[0], name],
                response.state_after or "idle",
            )
            return True
        return False

    def learn(self, here: str, objects: set[str]) -> None:
        """Agents learn the places they see."""
        parts = here.split(":")
        if len(parts) != 3:
            return
        known = set(self.known().get(parts[1], {}).get(parts[2], []))
        if parts[2] not in self.known().get(parts[1], {}) or objects - known:
            self.emit(
                AGENT_LEARNED,
                {"sector": parts[1], "arena": parts[2], "objects": sorted(objects - known)},
            )

    def react(self, other: Agent) -> bool:
        if not self.free(other):
            return False
        if self.agent.chat_cooldowns.get(other.name, 0) > self.step:
            return False
        if max(a.chat_cooldowns.get(ANYONE, 0) for a in (self.agent, other)) > self.step:
            return False  # one of them has just talked
        name = self.name
        context = self.statements(
            self.agent,
            f"What is {name}'s relationship with {other.name}?",
            f"{other.name} is {other.action or 'idle'}",
            k=4,
        )
        reaction = llm_run(
            task=REACT,
            inputs={
                "agent_name": name,
                "summary": self.summary(),
                "time": self.now.strftime("%B %d, %Y, %H:%M"),
                "action": self.agent.action or "idle",
                "observed_name": other.name,
                "observed_action": other.action or "idle",
                "context": context or ["nothing in particular"],
            },
            simulation=self.context.simulation,
            agent=self.agent,
        ).reaction
        if reaction == "talk":
            self.converse(other)
            return True
        if reaction == "wait":
            block = self.current_block()
            if block is not None:
                self.start_action(
                    block,
                    f"waiting for {other.name} to finish",
                    self.now + timedelta(minutes=2),
                    self.context.arena_at(self.agent.tile) or self.agent.living_area,
                    "⏳",
                    [name, "waits for", other.name],
                    "",
                )
                return True
        return False

    def converse(self, other: Agent) -> None:
        """Turn by turn; each line from what the speaker retrieves about the partner."""
        place = self.context.arena_at(self.agent.tile)
        lines: list[dict[str, str]] = []
        speakers = [(self.agent, other), (other, self.agent)]
        summaries = {self.name: self.summary(), other.name: other.summary or agent_identity(other)}
        done = False
        for _ in range(MAX_ROUNDS):
            for speaker, listener in speakers:
                result = self.line(speaker, listener, lines, place, summaries[speaker.name])
                lines.append({"speaker": speaker.name, "text": result.line})
                if result.end:
                    done = True
                    break
            if done:
                break
        participants = f"{self.name} and {other.name}"
        summary = llm_run(
            task=CONVERSATION_SUMMARY,
            inputs={
                "participants": participants,
                "place": place,
                "dialogue": [f"{line['speaker']}: {line['text']}" for line in lines],
            },
            simulation=self.context.simulation,
            agent=self.agent,
        ).summary
        tag = {"conversation": self.name}
        self.emit(
            CONVERSATION_HELD,
            {
                "participants": [self.name, other.name],
                "lines": lines,
                "summary": summary,
                "address": place,
                **tag,
            },
        )
        end_step = self.step + max(2, len(lines))
        for me, partner in ((self.agent, other), (other, self.agent)):
            self.notes.append(
                Note(
                    me.name,
                    MemoryKind.CONVERSATION,
                    summary,
                    (me.name, "talked with", partner.name),
                    self.name,
                )
            )
            self.emit(
                AGENT_ACTING,
                {
                    "action": f"chatting with {partner.name}",
                    "emoji": "💬",
                    "address": place,
                    "spo": [me.name, "chats with", partner.name],
                    "start_step": self.step,
                    "end_step": end_step,
                    "path": [],
                    "chatting_with": partner.name,
                    **tag,
                },
                agent=me.name,
            )
            self.emit(PLAN_REVISED, {"from": self.now.isoformat(), **tag}, agent=me.name)
            for who, minutes in ((partner.name, COOLDOWN_MINUTES), (ANYONE, RESPITE_MINUTES)):
                until = self.step + minutes * 60 // self.context.simulation.sec_per_step
                self.emit(
                    AGENT_CHAT_COOLDOWN,
                    {"partner": who, "until_step": until, **tag},
                    agent=me.name,
                )

    def line(
        self, speaker: Agent, listener: Agent, lines: list[dict[str, str]], place: str, summary: str
    ) -> Line:
        """The next line of a conversation, from what the speaker retrieves about the partner."""
        last = lines[-1]["text"] if lines else ""
        memories = self.important(speaker) + self.statements(
            speaker, f"{listener.name}. {last}".strip(), k=4
        )
        return llm_run(
            task=CONVERSE_LINE,
            inputs={
                "summary": summary,
                "time": self.now.strftime("%H:%M"),
                "place": place,
                "speaker": speaker.name,
                "listener": listener.name,
                "memories": [f"{i}. {m}" for i, m in enumerate(memories, 1)] or ["none"],
                "dialogue": [f"{line['speaker']}: {line['text']}" for line in lines]
                or ["(nothing yet)"],
            },
            simulation=self.context.simulation,
            agent=speaker,
        )


class PaperCognition:
    def decide(self, *, context: StepContext, agent: Agent) -> list[EventDraft]:
        return _Mind(context, agent).run()


def reply_line(
    *, context: StepContext, speaker: Agent, listener: Agent, lines: list[dict[str, str]]
) -> tuple[str, list[EventDraft]]:
    """What `speaker` says next to `listener` after `lines` (one model call), and the touch
    events of its retrievals: how a resident answers a user-controlled agent."""
    mind = _Mind(context, speaker)
    place = context.arena_at(speaker.tile)
    result = mind.line(speaker, listener, lines, place, speaker.summary or agent_identity(speaker))
    mind.remember()  # no notes: only the touches
    return result.line, mind.out


def _minutes(hhmm: str) -> timedelta:
    hours, _, minutes = hhmm.partition(":")
    return timedelta(hours=int(hours), minutes=int(minutes or 0))


def _sector_arena(address: str) -> tuple[str, str]:
    parts = address.split(":")
    return (parts[1] if len(parts) > 1 else "", parts[2] if len(parts) > 2 else "")


def _single(address: str) -> bool:
    return any(word in address.rsplit(":", 1)[-1].lower() for word in SINGLE_OCCUPANCY)


def _plan_item(level: PlanLevel, description: str, start: datetime, minutes: int) -> dict[str, Any]:
    return {
        "level": str(level),
        "description": description,
        "start": start.isoformat(),
        "duration_minutes": minutes,
    }


__all__ = ["PaperCognition", "date"]
