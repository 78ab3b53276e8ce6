"""The API's answers as typed dicts (the JSON as the server sends it; times are ISO 8601
strings). docs/api.md and the OpenAPI schema (/api/schema/) describe each field."""

from __future__ import annotations

from typing import Any, Literal, TypedDict

Status = Literal["idle", "running", "paused", "failed", "budget_exhausted"]
EvaluationStatus = Literal["pending", "running", "done", "failed"]
ScenarioStatus = Literal["pending", "applied", "cancelled"]
Json = dict[str, Any]


class Simulation(TypedDict):
    id: int
    name: str
    town: int
    base: str
    start_time: str
    sim_time: str
    sec_per_step: int
    step: int
    status: Status
    status_reason: str
    seed: int
    config: Json
    parent: int | None
    forked_at_step: int | None
    created_at: str
    resident_count: int


class Progress(TypedDict):
    status: Status
    reason: str
    step: int
    target_step: int | None
    sim_time: str
    agent_steps_per_second: float | None
    model_calls: int
    fallback_rate: float | None
    waiting_for: str


class Event(TypedDict):
    """One entry of a simulation's log; `seq` is gap-free from 1."""

    seq: int
    step: int
    sim_time: str
    kind: str
    agent: str
    payload: Json
    created_at: str


class Resident(TypedDict, total=False):
    """A resident as the list shows it; the detail adds `summary`, `path_length`,
    `spatial_memory`, and the controls' answers `pending_thought`."""

    id: int
    name: str
    first_name: str
    last_name: str
    age: int | None
    innate: str
    learned: str
    currently: str
    lifestyle: str
    living_area: str
    daily_plan_requirement: str
    tile: list[int]
    location: str | None
    action: str
    emoji: str
    place: str | None
    chatting_with: str
    busy_until_step: int
    user_controlled: bool
    left_step: int | None
    summary: str
    path_length: int
    spatial_memory: Json
    pending_thought: str


class Interview(TypedDict):
    number: int
    resident: str
    session: str
    persona: str
    question: str
    answer: str
    remembered: bool
    step: int
    sim_time: str


class Whisper(TypedDict):
    seq: int  # the agent.whispered event's
    step: int
    sim_time: str
    resident: str
    statement: str
    memory: Json | None  # the thought memory it made


class Evaluation(TypedDict):
    number: int
    step: int
    subject: int | None  # the simulation evaluated (a fork, or this one)
    kinds: list[str]
    conditions: list[str]
    facts: list[Any]
    events: list[Any]
    status: EvaluationStatus
    done: int
    total: int
    result: Json
    created_at: str
    finished_at: str | None


class Base(TypedDict):
    """A base (docs/authoring.md): a town, a start time, seconds per step, residents."""

    id: int
    format: str
    name: str
    description: str
    town: str
    start_time: str
    sec_per_step: int
    residents: list[Json]
    scenarios: list[Json]
    shipped: bool
    owner: str | None
    created_at: str
    updated_at: str


class Scenario(TypedDict):
    number: int
    kind: str
    at: str
    step: int
    params: Json
    status: ScenarioStatus
    added_step: int
    applied_step: int | None
    outcome: str
