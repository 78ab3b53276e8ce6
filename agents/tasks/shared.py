"""What several prompt tasks share: the strict base of every answer (no field beyond the
schema), times and dates as the schema writes them, a plan entry (the day plan's and the
hour blocks'), a commitment (the takeaways' and the intention's), and statements numbered
as the prompts show them."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date

from pydantic import BaseModel, ConfigDict, Field, field_validator

HHMM = re.compile(r"^([01]?\d|2[0-3]):[0-5]\d$")
DATE = re.compile(r"^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$")


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def hhmm(value: str) -> str:
    """A HH:MM time, zero-padded ("9:00" is "09:00") as what reads it expects."""
    if not HHMM.match(value):
        raise ValueError(f"{value!r} is not a HH:MM time")
    hours, minutes = value.split(":")
    return f"{int(hours):02d}:{minutes}"


def iso_date(value: str) -> str:
    try:
        date.fromisoformat(value)
    except ValueError:
        raise ValueError(f"{value!r} is not a date") from None
    return value


class PlanEntry(Strict):
    description: str = Field(min_length=1, max_length=300)
    start: str = Field(pattern=HHMM.pattern)  # in the schema: a grammar then enforces it
    duration_minutes: int = Field(ge=1, le=24 * 60)
    _start = field_validator("start")(hhmm)


class CommitmentOut(Strict):
    """Being somewhere at a time: what, a place the resident knows, the day and hours."""

    what: str = Field(min_length=1, max_length=300)
    place: str = Field(min_length=1, max_length=300)
    date: str = Field(pattern=DATE.pattern)
    # Patterns in the schema: a grammar engine then makes the model write real times.
    start: str = Field(pattern=HHMM.pattern)
    end: str = Field(pattern=HHMM.pattern)

    _start = field_validator("start")(hhmm)
    _end = field_validator("end")(hhmm)
    _day = field_validator("date")(iso_date)


def numbered(statements: Sequence[str]) -> list[str]:
    """Statements as the prompts show them: "1. ...", "2. ..."."""
    return [f"{n}. {text}" for n, text in enumerate(statements, start=1)]
