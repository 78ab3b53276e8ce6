"""`hourly_schedule`: the day plan as hour blocks at places the resident knows, covering
the day from 00:00 to 24:00 (checked; a reply's empty hours mended as the reference
implementation mends them). Offline: agents/offline/policy.py `hourly_blocks`."""

from __future__ import annotations

import random
from pathlib import Path

from pydantic import Field

from agents.offline import policy as offline
from agents.tasks.shared import PlanEntry, Strict
from llm.tasks import Inputs, PromptTask, task_register

TEMPLATE = Path(__file__).with_name("template.txt")
BLOCKS_MAX = 48


class Block(PlanEntry):
    sector: str = Field(max_length=300)
    arena: str = Field(max_length=300)


class HourlySchedule(Strict):
    blocks: list[Block] = Field(min_length=1, max_length=BLOCKS_MAX)


def _day_covered(schedule: HourlySchedule) -> str:
    """Hour blocks must cover the day from 00:00 to 24:00 without a gap: an hour with no
    block is an hour the resident would not know what to do."""
    covered = 0
    for block in sorted(schedule.blocks, key=lambda b: _minutes_of(b.start)):
        start = _minutes_of(block.start)
        if start > covered:
            return f"the blocks leave {covered // 60:02d}:{covered % 60:02d}-{block.start} empty"
        covered = max(covered, start + block.duration_minutes)
    if covered < 24 * 60:
        return f"the blocks end at {covered // 60:02d}:{covered % 60:02d}, not 24:00"
    return ""


def _day_filled(schedule: HourlySchedule) -> HourlySchedule:
    """The reference implementation's mend for hours a schedule leaves empty: the night
    before the first block and after the last is slept (at the first block's place, where
    the day starts), and a gap between blocks goes on with the block before it."""
    blocks = sorted(schedule.blocks, key=lambda b: _minutes_of(b.start))
    first = blocks[0]
    filled: list[Block] = []
    if (start := _minutes_of(first.start)) > 0:
        filled.append(_sleep(first, 0, start))
    for block in blocks:
        if filled and (gap := _minutes_of(block.start) - _end_of(filled[-1])) > 0:
            previous = filled[-1]
            filled[-1] = previous.model_copy(
                update={"duration_minutes": previous.duration_minutes + gap}
            )
        filled.append(block)
    if (end := max(_end_of(block) for block in filled)) < 24 * 60:
        filled.append(_sleep(first, end, 24 * 60))
    return HourlySchedule(blocks=filled[:BLOCKS_MAX])


def _sleep(at: Block, start: int, end: int) -> Block:
    return Block(
        description="sleeping",
        start=f"{start // 60:02d}:{start % 60:02d}",
        duration_minutes=end - start,
        sector=at.sector,
        arena=at.arena,
    )


def _end_of(block: Block) -> int:
    return _minutes_of(block.start) + block.duration_minutes


def _minutes_of(hhmm: str) -> int:
    hours, minutes = hhmm.split(":")
    return int(hours) * 60 + int(minutes)


def _hourly(inputs: Inputs, rng: random.Random) -> HourlySchedule:
    return HourlySchedule(
        blocks=[
            Block(description=d, start=offline.hhmm(s), duration_minutes=m, sector=se, arena=a)
            for d, s, m, se, a in offline.hourly_blocks(inputs, rng)
        ]
    )


HOURLY_SCHEDULE = task_register(
    PromptTask(
        name="hourly_schedule",
        template=TEMPLATE,
        output=HourlySchedule,
        offline=_hourly,
        description="the day plan as hour blocks at known places",
        check=lambda _inputs, schedule: _day_covered(schedule),
        repair=lambda _inputs, schedule: _day_filled(schedule),
    )
)
