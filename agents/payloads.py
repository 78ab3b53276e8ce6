"""The payloads of the agents layer's events, typed (their kinds and builders: agents.events)."""

from __future__ import annotations

from typing import Any, TypedDict


class MovedPayload(TypedDict):
    tile: list[int]


class HeadedPayload(TypedDict):
    destination: str
    path: list[list[int]]
    action: str


class ArrivedPayload(TypedDict):
    action: str
    busy_until_step: int


class PerceivedPayload(TypedDict):
    observations: list[str]


class _ActingRequired(TypedDict):
    action: str
    emoji: str
    address: str
    spo: list[str]
    start_step: int
    end_step: int
    path: list[list[int]]


class ActingPayload(_ActingRequired, total=False):
    chatting_with: str
    conversation: str  # the initiator of the conversation this action belongs to
    object_state: str  # the state the action gives its object once the agent is there


class SummarizedPayload(TypedDict):
    summary: str
    date: str


class DayPlannedPayload(TypedDict):
    date: str


class LearnedPayload(TypedDict):
    sector: str
    arena: str
    objects: list[str]


class WhisperedPayload(TypedDict):
    statement: str


class ControlPayload(TypedDict):
    user_controlled: bool


class _CooldownRequired(TypedDict):
    partner: str
    until_step: int


class ChatCooldownPayload(_CooldownRequired, total=False):
    conversation: str


class _PlanItemRequired(TypedDict):
    level: str
    description: str
    start: str
    duration_minutes: int


class PlanItemPayload(_PlanItemRequired, total=False):
    address: str
    emoji: str
    spo: list[str]
    parent: int  # the number of a plan row made earlier
    parent_index: int  # the position of an item of the same event (from 0)
    parent_start: str  # the start (ISO) of the parent hour block
    source_memory: int  # the number of the memory it came from (a commitment)


class PlanMadePayload(TypedDict):
    items: list[PlanItemPayload]


class ObjectStatePayload(TypedDict):
    address: str
    state: str


class ConversationLine(TypedDict):
    speaker: str
    text: str


class _ConversationRequired(TypedDict):
    participants: list[str]
    lines: list[ConversationLine]
    summary: str
    address: str


class ConversationPayload(_ConversationRequired, total=False):
    conversation: str


class InterviewPayload(TypedDict):
    session: str
    persona: str
    question: str
    answer: str
    remembered: bool


class ReflectionRequestedPayload(TypedDict):
    due_step: int
    importance: int


class ReflectionDonePayload(TypedDict, total=False):
    due_step: int
    questions: list[str]
    reflections: int
    dropped_citations: list[Any]
    failed: bool
    error: str


class _CommittedRequired(TypedDict):
    what: str
    address: str
    start: str
    end: str
    memory: str  # the description of the thought memory it came from


class CommittedPayload(_CommittedRequired, total=False):
    conversation: str
