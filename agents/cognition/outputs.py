"""What the model must answer for each of cognition's prompt tasks: the schemas (strict:
no field beyond them) and the longest text each free-text field may hold (what stores it
has room for it, and the offline rules clip to it)."""

from __future__ import annotations

import re
from datetime import date
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

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
