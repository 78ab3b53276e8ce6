"""The cognition's prompt tasks: schemas of what the model must answer, and their offline
policies (agents/cognition/offline*.py). Templates: agents/llm/templates/<task>.txt."""

from __future__ import annotations

import random
import re
from datetime import date
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from agents.offline import actions as offline_actions
from agents.offline import interview as offline_interview
from agents.offline import news as offline_news
from agents.offline import policy as offline
from agents.offline import talk as offline_talk
from llm.tasks import Inputs, PromptTask, task_register

_HHMM = re.compile(r"^([01]?\d|2[0-3]):[0-5]\d$")
_DATE = re.compile(r"^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _time(value: str) -> str:
    """A HH:MM time, zero-padded ("9:00" is "09:00") as what reads it expects."""
    if not _HHMM.match(value):
        raise ValueError(f"{value!r} is not a HH:MM time")
    hours, minutes = value.split(":")
    return f"{int(hours):02d}:{minutes}"


def _date(value: str) -> str:
    try:
        date.fromisoformat(value)
    except ValueError:
        raise ValueError(f"{value!r} is not a date") from None
    return value


class ImportanceMany(_Strict):
    importance: list[Annotated[int, Field(ge=1, le=10)]] = Field(min_length=1, max_length=50)

    @field_validator("importance")
    @classmethod
    def _range(cls, values: list[int]) -> list[int]:
        if any(not 1 <= v <= 10 for v in values):
            raise ValueError("every importance must be 1..10")
        return values


# The longest text each free-text output may be: what stores it has room for it, and the
# offline policies clip to it (`offline.clip`).
SUMMARY_MAX = 2000
LINE_MAX = 600
CONVERSATION_SUMMARY_MAX = 1000
ANSWER_MAX = 2000


class Summary(_Strict):
    summary: str = Field(min_length=1, max_length=SUMMARY_MAX)


class PlanEntry(_Strict):
    description: str = Field(min_length=1, max_length=300)
    start: str = Field(pattern=_HHMM.pattern)  # in the schema: a grammar then enforces it
    duration_minutes: int = Field(ge=1, le=24 * 60)
    _start = field_validator("start")(_time)


class DayPlan(_Strict):
    items: list[PlanEntry] = Field(min_length=3, max_length=12)


class Block(PlanEntry):
    sector: str = Field(max_length=300)
    arena: str = Field(max_length=300)


BLOCKS_MAX = 48


class HourlySchedule(_Strict):
    blocks: list[Block] = Field(min_length=1, max_length=BLOCKS_MAX)


class Action(_Strict):
    description: str = Field(min_length=1, max_length=300)
    duration_minutes: int = Field(ge=1, le=60)
    object: str = Field(max_length=300)
    emoji: str = Field(max_length=16)
    triple: list[str] = Field(min_length=3, max_length=3)
    object_state: str = Field(max_length=300)


DECOMPOSITION_MAX = 12


class Decomposition(_Strict):
    actions: list[Action] = Field(min_length=1, max_length=DECOMPOSITION_MAX)


RELATIONSHIP_MAX = 500
NOTE_MAX = 600


class Relationship(_Strict):
    summary: str = Field(min_length=1, max_length=RELATIONSHIP_MAX)


class CommitmentOut(_Strict):
    """Being somewhere at a time: what, a place the resident knows, the day and hours."""

    what: str = Field(min_length=1, max_length=300)
    place: str = Field(min_length=1, max_length=300)
    date: str = Field(pattern=_DATE.pattern)
    # Patterns in the schema: a grammar engine then makes the model write real times.
    start: str = Field(pattern=_HHMM.pattern)
    end: str = Field(pattern=_HHMM.pattern)

    _start = field_validator("start")(_time)
    _end = field_validator("end")(_time)
    _day = field_validator("date")(_date)


class Takeaways(_Strict):
    memo: str = Field(max_length=NOTE_MAX)
    thought: str = Field(max_length=NOTE_MAX)
    commitment: CommitmentOut | None = None


class Intention(_Strict):
    commitment: CommitmentOut | None = None


class Reaction(_Strict):
    reaction: Literal["talk", "wait", "continue"]
    reason: str = Field(max_length=500)


class Response(_Strict):
    respond: bool
    action: str = Field(max_length=300)
    emoji: str = Field(max_length=16)
    state_after: str = Field(max_length=300)


class Line(_Strict):
    line: str = Field(min_length=1, max_length=LINE_MAX)
    end: bool


class ConversationSummary(_Strict):
    summary: str = Field(min_length=1, max_length=CONVERSATION_SUMMARY_MAX)


class InterviewAnswer(_Strict):
    answer: str = Field(min_length=1, max_length=ANSWER_MAX)


def _day_plan(inputs: Inputs, rng: random.Random) -> DayPlan:
    return DayPlan(
        items=[
            PlanEntry(description=d, start=offline.hhmm(s), duration_minutes=m)
            for d, s, m in offline.day_plan(inputs, rng)
        ]
    )


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


def _decompose(inputs: Inputs, rng: random.Random) -> Decomposition:
    name = str(inputs["agent_name"])
    return Decomposition(
        actions=[
            Action(
                description=d,
                duration_minutes=m,
                object=o,
                emoji=e,
                triple=[name, d.split()[0], o or "room"],
                object_state=s,
            )
            for d, m, o, e, s in offline_actions.actions_for(
                inputs, rng, max_actions=DECOMPOSITION_MAX
            )
        ]
    )


def _line(inputs: Inputs, rng: random.Random) -> Line:
    text, end = offline_talk.converse_line(inputs, rng)
    return Line(line=offline.clip(text, LINE_MAX), end=end)


IMPORTANCE_MANY = task_register(
    PromptTask(
        name="importance_many",
        template="importance_many.txt",
        output=ImportanceMany,
        offline=lambda i, r: ImportanceMany(importance=offline.importance_many(i, r)),
        description="the poignancy of the memories an agent makes in one step",
    )
)
SUMMARY = task_register(
    PromptTask(
        name="summary",
        template="summary.txt",
        output=Summary,
        offline=lambda i, r: Summary(summary=offline.clip(offline.summary_text(i), SUMMARY_MAX)),
        description="the agent's summary description, once a sim day",
    )
)
DAY_PLAN = task_register(
    PromptTask(
        name="day_plan",
        template="day_plan.txt",
        output=DayPlan,
        offline=_day_plan,
        description="the day in broad strokes",
    )
)
HOURLY_SCHEDULE = task_register(
    PromptTask(
        name="hourly_schedule",
        template="hourly_schedule.txt",
        output=HourlySchedule,
        offline=_hourly,
        description="the day plan as hour blocks at known places",
        check=lambda _inputs, schedule: _day_covered(schedule),
        repair=lambda _inputs, schedule: _day_filled(schedule),
    )
)
DECOMPOSE = task_register(
    PromptTask(
        name="decompose",
        template="decompose.txt",
        output=Decomposition,
        offline=_decompose,
        description="an hour block as 5-15 minute actions at objects",
    )
)
REACT = task_register(
    PromptTask(
        name="react",
        template="react.txt",
        output=Reaction,
        offline=lambda i, r: Reaction(reaction=offline_talk.react(i, r), reason="offline policy"),  # type: ignore[arg-type]
        description="whether to talk, wait or carry on",
    )
)
CONVERSE_LINE = task_register(
    PromptTask(
        name="converse_line",
        template="converse_line.txt",
        output=Line,
        offline=_line,
        description="the next line of a conversation",
    )
)
CONVERSATION_SUMMARY = task_register(
    PromptTask(
        name="conversation_summary",
        template="conversation_summary.txt",
        output=ConversationSummary,
        offline=lambda i, r: ConversationSummary(
            summary=offline.clip(offline_talk.conversation_summary(i), CONVERSATION_SUMMARY_MAX)
        ),
        description="what a conversation was about",
    )
)


def _respond(inputs: Inputs, rng: random.Random) -> Response:
    action = offline_actions.respond_to(str(inputs["object"]), str(inputs["state"]))
    if action is None:
        return Response(respond=False, action="", emoji="", state_after="")
    return Response(respond=True, action=action, emoji="🧯", state_after="idle")


RESPOND_EVENT = task_register(
    PromptTask(
        name="respond_event",
        template="respond_event.txt",
        output=Response,
        offline=_respond,
        description="whether and how to deal with something happening to an object",
    )
)

INTERVIEW = task_register(
    PromptTask(
        name="interview",
        template="interview.txt",
        output=InterviewAnswer,
        offline=lambda i, r: InterviewAnswer(
            answer=offline.clip(offline_interview.interview_answer(i), ANSWER_MAX)
        ),
        description="an answer to a user's interview question, in character",
    )
)


def _commitment(happening: offline_news.Happening | None) -> CommitmentOut | None:
    if happening is None or happening.day is None:
        return None
    return CommitmentOut(
        what=f"going to the {happening.what}",
        place=happening.place,
        date=happening.day.isoformat(),
        start=offline_news.clock(happening.start),
        end=offline_news.clock(happening.end),
    )


def _takeaways(inputs: Inputs, rng: random.Random) -> Takeaways:
    memo, thought, happening = offline_news.takeaways(inputs, rng)
    return Takeaways(
        memo=offline.clip(memo, NOTE_MAX),
        thought=offline.clip(thought, NOTE_MAX),
        commitment=_commitment(happening),
    )


RELATIONSHIP = task_register(
    PromptTask(
        name="relationship",
        template="relationship.txt",
        output=Relationship,
        offline=lambda i, r: Relationship(
            summary=offline.clip(offline_news.relationship(i), RELATIONSHIP_MAX)
        ),
        description="how one resident stands with another, before reacting and each turn",
    )
)
TAKEAWAYS = task_register(
    PromptTask(
        name="conversation_takeaways",
        template="conversation_takeaways.txt",
        output=Takeaways,
        offline=_takeaways,
        description="after a conversation: a memo, a planning thought, maybe a commitment",
    )
)
INTENTION = task_register(
    PromptTask(
        name="intention",
        template="intention.txt",
        output=Intention,
        offline=lambda i, r: Intention(commitment=_commitment(offline_news.intention(i))),
        description="whether a thought commits the resident to a place and time",
    )
)
