"""The base file format (JSON, `smallville-base/1`): one schema for REST, the admin and files.

A document is checked in two passes: `document_parse` (shapes, sizes, ranges, unique names)
needs nothing else; `agents.bases.services` then checks it against its town (places and
tiles). Both raise BaseInvalid with messages keyed by the path of every field at fault
(world.fieldpath), e.g. `residents[2].living_area`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictInt,
    StrictStr,
    ValidationError,
    model_validator,
)

from world.clock import SimTimeOutOfReach, sim_time_check
from world.fieldpath import loc_errors

FORMAT = "smallville-base/1"
MAX_RESIDENTS = 200
MAX_SEEDS = 100  # seed memories (and relationships) per resident
MAX_MEMORY_CHARS = 1000  # one seed memory or relationship
MAX_TEXT_CHARS = 2000  # an identity field
MAX_DOCUMENT_BYTES = 2_000_000  # a base file (the shipped 25-resident base is 83 kB)

Text = Annotated[StrictStr, Field(max_length=MAX_TEXT_CHARS)]
Memory = Annotated[StrictStr, Field(min_length=1, max_length=MAX_MEMORY_CHARS)]
Name = Annotated[StrictStr, Field(min_length=1, max_length=200, pattern=r"^[^/:\\]*\w[^/:\\]*$")]
Small = Annotated[StrictInt, Field(ge=1, le=64)]


class BaseInvalid(ValueError):
    """A base breaks its schema or does not fit its town: `errors` maps field paths to messages."""

    def __init__(self, errors: dict[str, list[str]]) -> None:
        super().__init__("; ".join(f"{k}: {' '.join(v)}" for k, v in errors.items()))
        self.errors = errors


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class Start(_Strict):
    """Where a resident starts: a place's address (its first walkable tile) or a tile."""

    address: Annotated[StrictStr, Field(min_length=1, max_length=600)] | None = None
    tile: tuple[StrictInt, StrictInt] | None = None

    @model_validator(mode="after")
    def _one(self) -> Start:
        if (self.address is None) == (self.tile is None):
            raise ValueError("give exactly one of address and tile")
        return self


class Relationship(_Strict):
    """What the resident knows of another resident of the base; seeded as a memory."""

    with_: Name = Field(alias="with")
    memory: Memory


class Resident(_Strict):
    """A resident: the reference's identity fields, a start, seed memories, relationships."""

    name: Name
    first_name: Annotated[StrictStr, Field(max_length=100)] = ""
    last_name: Annotated[StrictStr, Field(max_length=100)] = ""
    age: Annotated[StrictInt, Field(ge=0, le=150)] | None = None
    innate: Text = ""
    learned: Text = ""
    currently: Text = ""
    lifestyle: Text = ""
    living_area: Annotated[StrictStr, Field(max_length=600)] = ""
    daily_plan_requirement: Text = ""
    start: Start
    seed_memories: list[Memory] = Field(default_factory=list, max_length=MAX_SEEDS)
    relationships: list[Relationship] = Field(default_factory=list, max_length=MAX_SEEDS)
    # Places the resident knows, {world: {sector: {arena: [objects]}}}; empty: the whole town.
    spatial_memory: dict[str, dict[str, dict[str, list[StrictStr]]]] | None = None
    vision_radius: Small = 8
    attention_bandwidth: Small = 8
    retention: Small = 8
    recency_decay: Annotated[float, Field(gt=0, le=1)] = 0.995
    reflection_threshold: Annotated[StrictInt, Field(ge=1, le=100_000)] = 150


Word = Annotated[StrictStr, Field(min_length=1, max_length=60)]
Words = Annotated[
    list[Annotated[list[Word], Field(min_length=1, max_length=8)]], Field(max_length=8)
]
Clause = Annotated[StrictStr, Field(min_length=1, max_length=200)]


class FactSpec(_Strict):
    """A fact whose diffusion an evaluation measures (evaluations.named)."""

    text: Clause
    origin: Clause | None = None  # the resident it starts from
    words: Words = Field(default_factory=list)  # groups; a sentence holds one of each
    published: Text = ""  # what a study reported of it, shown beside the measure


class EventSpec(_Strict):
    """An event whose attendance an evaluation measures (evaluations.named)."""

    what: Clause
    host: Clause | None = None
    place: Clause  # a sector of the town
    start: datetime
    end: datetime
    words: Words = Field(default_factory=list)
    published: Text = ""

    @model_validator(mode="after")
    def _window(self) -> EventSpec:
        if self.start.tzinfo is None or self.end.tzinfo is None:
            raise ValueError("start and end need a time zone, e.g. 2024-05-01T18:00:00Z")
        if self.end <= self.start:
            raise ValueError("end must be after start")
        return self


MAX_MEASURES = 20


class Measures(_Strict):
    """What an evaluation of a simulation of this base measures by name when it names
    nothing itself."""

    facts: list[FactSpec] = Field(default_factory=list, max_length=MAX_MEASURES)
    events: list[EventSpec] = Field(default_factory=list, max_length=MAX_MEASURES)
    # The interview's two questions on the town's news (evaluations.questions).
    questions: list[Clause] = Field(default_factory=list, max_length=2)


SCENARIO_KINDS = ("whisper", "announce", "object_state", "arrive", "leave")
MAX_SCENARIOS = 200
Place = Annotated[StrictStr, Field(min_length=1, max_length=600)]
# The fields each kind of scenario needs (runtime/scenarios.py applies them).
SCENARIO_NEEDS = {
    "whisper": ("resident", "statement"),
    "announce": ("place", "statement"),
    "object_state": ("address", "state"),
    "arrive": ("arrive",),
    "leave": ("resident",),
}


class ScenarioSpec(_Strict):
    """A timed intervention of the base: at sim time `at`, whisper a `statement` to a
    `resident`, `announce` it at a `place`, set an object's `state` (`address`), `arrive`
    (a resident in this file's format) or `leave`."""

    kind: Literal["whisper", "announce", "object_state", "arrive", "leave"]
    at: datetime
    resident: Name | None = None
    statement: Memory | None = None
    place: Place | None = None
    address: Place | None = None
    state: Annotated[StrictStr, Field(min_length=1, max_length=300)] | None = None
    arrive: Resident | None = None

    @model_validator(mode="after")
    def _fields_of_its_kind(self) -> ScenarioSpec:
        needs = SCENARIO_NEEDS[self.kind]
        for field in needs:
            if getattr(self, field) is None:
                raise ValueError(f"a {self.kind} scenario needs {field}")
        extra = [
            f
            for f in ("resident", "statement", "place", "address", "state", "arrive")
            if f not in needs and getattr(self, f) is not None
        ]
        if extra:
            raise ValueError(f"a {self.kind} scenario takes no {extra[0]}")
        return self


class Document(_Strict):
    """A base file."""

    format: Literal["smallville-base/1"] = "smallville-base/1"
    name: Annotated[StrictStr, Field(min_length=1, max_length=100)]
    description: Text = ""
    town: Annotated[StrictStr, Field(min_length=1, max_length=100)]
    start_time: datetime
    sec_per_step: Annotated[StrictInt, Field(ge=1, le=3600)] = 10
    residents: list[Resident] = Field(min_length=1, max_length=MAX_RESIDENTS)
    measures: Measures = Field(default_factory=Measures)
    scenarios: list[ScenarioSpec] = Field(default_factory=list, max_length=MAX_SCENARIOS)


def document_parse(data: Any) -> Document:
    """The document `data` (parsed JSON), or BaseInvalid naming every bad field."""
    if not isinstance(data, dict):
        raise BaseInvalid({"non_field_errors": ["a base is a JSON object"]})
    try:
        document = Document.model_validate(data)
    except ValidationError as exc:
        raise BaseInvalid(loc_errors(exc.errors(), skip=("with_",))) from None
    errors: dict[str, list[str]] = {}
    try:  # a simulation of the base must be able to start and run (world.clock)
        sim_time_check(start=document.start_time, sec_per_step=document.sec_per_step)
    except SimTimeOutOfReach as exc:
        errors["start_time"] = [str(exc)]
    seen: dict[str, int] = {}
    for number, resident in enumerate(document.residents):
        key = resident.name.casefold()
        if key in seen:
            message = f"{resident.name!r} is the name of resident {seen[key]}"
            errors.setdefault(f"residents[{number}].name", []).append(message)
        seen.setdefault(key, number)
    for number, resident in enumerate(document.residents):
        for index, relation in enumerate(resident.relationships):
            if (
                relation.with_.casefold() not in seen
                or relation.with_.casefold() == resident.name.casefold()
            ):
                message = f"{relation.with_!r} is not another resident of this base"
                field = f"residents[{number}].relationships[{index}].with"
                errors.setdefault(field, []).append(message)
    _scenarios_check(document, seen, errors)
    if errors:
        raise BaseInvalid(errors)
    return document


def _scenarios_check(
    document: Document, seen: dict[str, int], errors: dict[str, list[str]]
) -> None:
    """Scenarios after the start, each resident named one of the base's or one arrived
    by then, each arrival a new name; what is wrong added to `errors`."""
    arrivals: dict[str, datetime] = {}
    for number, spec in enumerate(document.scenarios):
        field = f"scenarios[{number}]"
        if spec.at.tzinfo is None or spec.at < document.start_time:
            message = "at must have a time zone and be from start_time on"
            errors.setdefault(f"{field}.at", []).append(message)
        if spec.arrive is not None:
            key = spec.arrive.name.casefold()
            if key in seen or key in arrivals:
                message = f"{spec.arrive.name!r} is taken"
                errors.setdefault(f"{field}.arrive.name", []).append(message)
            arrivals.setdefault(key, spec.at)
        if spec.resident is not None:
            key = spec.resident.casefold()
            if key not in seen and not (key in arrivals and arrivals[key] <= spec.at):
                message = f"{spec.resident!r} is no resident of this base then"
                errors.setdefault(f"{field}.resident", []).append(message)


def document_dump(document: Document) -> dict[str, Any]:
    """The document as JSON-ready data (what export writes and import reads)."""
    return document.model_dump(mode="json", by_alias=True, exclude_none=True)
