"""Planning: the day plan and its hour blocks (once a sim day), the decomposition of a
block into 5-15 minute actions, and the block covering now."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from agents.cognition.blocks import Block
from agents.cognition.identity import summary, yesterday
from agents.cognition.mind import Mind, Note
from agents.cognition.news import intend
from agents.cognition.places import sector_arena
from agents.cognition.recall import statements
from agents.cognition.selectors import (
    commitments_of_day,
    plan_actions_list,
    plan_block_current,
    plan_blocks_of_day,
)
from agents.events import agent_day_planned, plan_item, plan_made, plan_revised
from agents.models import Commitment, PlanLevel
from agents.payloads import PlanItemPayload
from agents.selectors import plan_line
from agents.tasks.day_plan import DAY_PLAN
from agents.tasks.decompose import DECOMPOSE
from agents.tasks.hourly_schedule import HOURLY_SCHEDULE
from llm.inputs import agent_traits
from llm.port import llm_run, llm_send_ahead
from memories.models import MemoryKind


@dataclass(frozen=True)
class NextAction:
    """An action to start now and do until `end`, at `address` (or at the object of the
    block's arena nearest to a bare name such as "bed"), leaving the object in
    `object_state` while it lasts ("" to leave it as it is)."""

    description: str
    end: datetime
    address: str
    emoji: str
    spo: list[str]
    object_state: str


def with_commitments(blocks: list[Block], commitments: list[Commitment]) -> list[Block]:
    """The blocks with each commitment in its hours: a block it overlaps keeps only the
    time before and after it."""
    for commitment in commitments:
        sector, arena = sector_arena(commitment.address)
        minutes = max(5, round((commitment.end - commitment.start).total_seconds() / 60))
        kept: list[Block] = []
        for block in blocks:
            if block.end <= commitment.start or block.start >= commitment.end:
                kept.append(block)
                continue
            if block.start < commitment.start:
                before = (commitment.start - block.start).total_seconds() // 60
                kept.append(replace(block, minutes=int(before), number=None))
            if block.end > commitment.end:
                after = (block.end - commitment.end).total_seconds() // 60
                kept.append(replace(block, start=commitment.end, minutes=int(after), number=None))
        kept.append(
            Block(
                commitment.what,
                commitment.start,
                minutes,
                sector,
                arena,
                source_memory=commitment.memory,
            )
        )
        blocks = sorted(kept, key=lambda b: b.start)
    return blocks


def _blocks_ahead(mind: Mind) -> list[Block]:
    """Today's hour blocks that end after now (the one covering now first): made this
    step, or stored."""
    if mind.blocks is not None:
        return [b for b in mind.blocks if b.end > mind.now]
    found = []
    row = plan_block_current(agent=mind.agent, now=mind.now)
    if row is not None and row.start < mind.now:
        sector, arena = sector_arena(row.address)
        block = Block(row.description, row.start, row.duration_minutes, sector, arena, row.number)
        found += [block] if block.end > mind.now else []
    rows = plan_blocks_of_day(agent=mind.agent, day=mind.now.date(), since=mind.now)
    return found + [
        Block(row.description, row.start, row.duration_minutes, *sector_arena(row.address))
        for row in rows
    ]


def replan_rest_of_day(mind: Mind, made: Sequence[Commitment] = ()) -> None:
    """A commitment made for later today (`made`: this step, not yet a row): the hour
    blocks from now on again, with it in its hours (cited to the memory it came from).
    The block covering now stays as it is; the blocks are the mind's from then on, so
    this step acts on them."""
    agent, now = mind.agent, mind.now
    today = _blocks_ahead(mind)
    kept = [b for b in today if b.start < now]
    ahead = [b for b in today if b.start >= now]
    blocks = with_commitments(ahead, [*commitments_of_day(agent=agent, since=now), *made])
    mind.emit(plan_revised(agent=mind.name, since=now.isoformat(), rest_of_day=True))
    items = [_hour_item(mind, block) for block in blocks if block.end > now]
    mind.emit(plan_made(agent=mind.name, items=items))
    _remember_blocks(mind, blocks)
    mind.blocks = kept + blocks


def plan_from_now(mind: Mind) -> list[str]:
    """The resident's plan from now as it tells it (`agents.selectors.plan_line`): its
    commitments of today, then its hour blocks."""
    commitments = commitments_of_day(agent=mind.agent, since=mind.now)
    return [
        *(plan_line(start=c.start, end=c.end, what=c.what, address=c.address) for c in commitments),
        *(
            plan_line(
                start=b.start,
                end=b.end,
                what=b.description,
                address=mind.places.address(b.sector, b.arena),
            )
            for b in _blocks_ahead(mind)
        ),
    ]


def _hour_item(mind: Mind, block: Block, parent: int | None = None) -> PlanItemPayload:
    return plan_item(
        level=PlanLevel.HOUR,
        description=block.description,
        start=block.start,
        minutes=block.minutes,
        address=mind.places.address(block.sector, block.arena),
        parent_index=parent,
        source_memory=block.source_memory,
    )


def _remember_blocks(mind: Mind, blocks: list[Block]) -> None:
    """Hour blocks are plan memories too, retrievable like any other."""
    for block in blocks:
        when = f"{block.start:%H:%M} to {block.end:%H:%M} on {block.start:%B %d}"
        description = f"{mind.name} plans to be {block.description} from {when}"
        if block.arena:
            description += f" at {block.arena} of {block.sector}"
        spo = (mind.name, "plans", block.description[:300])
        mind.notes.append(Note(mind.name, MemoryKind.PLAN, description, spo))


def plan_day(mind: Mind) -> None:
    """The day in broad strokes, then as hour blocks at known places (plan rows of both
    levels in one `plan.made`), and a memory of the plan."""
    agent, name, today = mind.agent, mind.name, mind.now.date()
    midnight = datetime.combine(today, datetime.min.time(), tzinfo=mind.now.tzinfo)
    mind.emit(agent_day_planned(agent=name, date=today.isoformat()))
    if "no_planning" in mind.ablations:
        mind.blocks = []
        return
    places = mind.places
    recent = statements(mind, agent, f"plans for {today:%B %d}", "important recent events", k=3)
    own = next((s for s in recent if "told me)" not in s), "")
    if own:
        intend(mind, own)  # its own plans (a party it hosts) become commitments too
    commitments = commitments_of_day(agent=agent, since=midnight)
    common = {
        "agent_name": name,
        "summary": summary(mind),
        "living_area": agent.living_area,
        "places": places.text(),
    }
    plan = llm_run(
        task=DAY_PLAN,
        inputs={
            **common,
            "identity": agent_traits(agent),
            "daily_plan_requirement": agent.daily_plan_requirement or "none",
            "lifestyle": agent.lifestyle,
            "yesterday": yesterday(mind),
            "date": today.strftime("%A %B %d, %Y"),
            "commitments": [
                f"{c.start:%H:%M}-{c.end:%H:%M}: {c.what} at {c.address}" for c in commitments
            ]
            or ["none"],
            "recent": recent or ["none"],
        },
        simulation=mind.simulation,
        agent=agent,
    )
    day_text = [f"{i.start} ({i.duration_minutes} min): {i.description}" for i in plan.items]
    schedule = llm_run(
        task=HOURLY_SCHEDULE,
        inputs={**common, "day_plan": day_text},
        simulation=mind.simulation,
        agent=agent,
    )
    items: list[PlanItemPayload] = []
    day_starts = []
    for item in plan.items:
        start = midnight + _minutes(item.start)
        day_starts.append(start)
        items.append(
            plan_item(
                level=PlanLevel.DAY,
                description=item.description,
                start=start,
                minutes=item.duration_minutes,
            )
        )
    blocks = []
    for entry in schedule.blocks:
        sector, arena = places.nearest_arena(entry.sector, entry.arena)
        start = midnight + _minutes(entry.start)
        blocks.append(Block(entry.description, start, entry.duration_minutes, sector, arena))
    mind.blocks = with_commitments(blocks, commitments)
    for hour in mind.blocks:
        parent = max((i for i, s in enumerate(day_starts) if s <= hour.start), default=0)
        items.append(_hour_item(mind, hour, parent))
    mind.emit(plan_made(agent=name, items=items))
    gist = "; ".join(f"{i.start} {i.description}" for i in plan.items)
    description = f"This is {name}'s plan for {today:%A %B %d}: {gist}"
    mind.notes.append(Note(name, MemoryKind.PLAN, description))
    _remember_blocks(mind, mind.blocks)


def current_block(mind: Mind) -> Block | None:
    """The hour block covering now: today's if planned this step, else the stored one.
    Without a plan (or with the `no_planning` ablation) the hour is the agent's own."""
    if mind.blocks is not None:
        blocks = mind.blocks
    else:
        row = plan_block_current(agent=mind.agent, now=mind.now)
        blocks = []
        if row is not None:
            sector, arena = sector_arena(row.address)
            blocks.append(
                Block(row.description, row.start, row.duration_minutes, sector, arena, row.number)
            )
    for block in blocks:
        if block.start <= mind.now < block.end:
            return block
    if "no_planning" in mind.ablations or not blocks:
        sector, arena = sector_arena(mind.here or mind.agent.living_area)
        start = mind.now.replace(minute=0, second=0)
        return Block(f"going about {mind.name}'s day", start, 60, sector, arena)
    return None


def decompose(mind: Mind, block: Block, *, from_now: bool = False) -> NextAction | None:
    """The block as actions at the arena's objects (plan rows of the action level); the one
    covering now. As the reference does, the whole block from its start, asked with
    inputs known before it begins, so the answer sent an hour ahead (`decompose_ahead`) is
    the one taken and no step waits for it; from now when a thought re-plans the hour or
    the block's actions leave now uncovered (`from_now`)."""
    name, places = mind.name, mind.places
    fresh = from_now or bool(mind.thought)
    start = (mind.now if fresh else block.start).replace(second=0, microsecond=0)
    inputs = decompose_inputs(mind, block, start=start, thought=mind.thought)
    result = llm_run(task=DECOMPOSE, inputs=inputs, simulation=mind.simulation, agent=mind.agent)
    items: list[PlanItemPayload] = []
    when, first = start, None
    for action in result.actions:
        address = places.object_address(block.sector, block.arena, action.object)
        items.append(
            plan_item(
                level=PlanLevel.ACTION,
                description=action.description,
                start=when,
                minutes=action.duration_minutes,
                address=address,
                emoji=action.emoji,
                spo=action.triple,
                parent_start=block.start,
            )
        )
        end = when + timedelta(minutes=action.duration_minutes)
        description = f"{name} plans to be {action.description} from {when:%H:%M} to {end:%H:%M}"
        spo = (name, "plans", action.description[:300])
        mind.notes.append(Note(name, MemoryKind.PLAN, description, spo))
        if first is None and when <= mind.now < end:
            first = NextAction(
                action.description, end, address, action.emoji, action.triple, action.object_state
            )
        when = end
    mind.emit(plan_made(agent=name, items=items))
    return first


def decompose_inputs(mind: Mind, block: Block, *, start: datetime, thought: str) -> dict[str, Any]:
    """What `decompose` asks the model: the block from `start`, with a thought of the
    resident's inner voice (or none). Nothing in it depends on where the resident stands
    or when it got free, so the next block's inputs are known an hour ahead."""
    name = mind.name
    objects = mind.places.objects_in(block.sector, block.arena)
    return {
        "agent_name": name,
        "summary": summary(mind),
        "start": start.strftime("%H:%M"),
        "duration_minutes": max(5, math.ceil((block.end - start).total_seconds() / 60)),
        "block": block.description,
        "arena": f"{block.sector}: {block.arena}",
        "objects": ", ".join(objects) or "none",
        "context": f"{name} just thought: {thought}" if thought else "",
    }


def decompose_ahead(mind: Mind, block: Block) -> None:
    """Declare that the decomposition of the block after `block` (today's) may be sent
    ahead (llm.port decides): its inputs do not change before it begins (`decompose`),
    so, as the reference decomposes the hour ahead, the model's wait falls in no step."""
    llm_send_ahead(
        task=DECOMPOSE,
        inputs=lambda: _foreseen(mind, block),
        simulation=mind.simulation,
        agent=mind.agent,
    )


def _foreseen(mind: Mind, block: Block) -> dict[str, Any] | None:
    """The next block's decomposition inputs; None when there is none to send."""
    if block.end.date() != mind.now.date():
        return None  # a new day's plan first
    following = _block_at(mind, block.end)
    if following is None or following.sleeping:
        return None
    if following.number is not None and plan_actions_list(
        agent=mind.agent, block_number=following.number
    ):
        return None  # decomposed already
    return decompose_inputs(mind, following, start=following.start, thought="")


def _block_at(mind: Mind, when: datetime) -> Block | None:
    """The hour block covering `when` (today's plan: made this step, or stored)."""
    if mind.blocks is not None:
        return next((b for b in mind.blocks if b.start <= when < b.end), None)
    row = plan_block_current(agent=mind.agent, now=when)
    if row is None:
        return None
    sector, arena = sector_arena(row.address)
    found = Block(row.description, row.start, row.duration_minutes, sector, arena, row.number)
    return found if found.start <= when < found.end else None


def _minutes(hhmm: str) -> timedelta:
    hours, _, minutes = hhmm.partition(":")
    return timedelta(hours=int(hours), minutes=int(minutes or 0))
