"""The projection of what residents said and were asked: conversations and interviews,
each numbered per simulation in log order.

Numbers across the whole simulation depend on the order of events between residents,
so this projection is applied in log order (`in_log_order`): when the events are
appended, also under the engine that projects a group's events before its step is in
the log (agents/engine/ahead.py), where residents far apart may commit out of log
order. Nothing a resident decides reads these tables.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from world.models import Agent, Event, Simulation

from ..events import CONVERSATION_HELD, INTERVIEW_ANSWERED
from ..models import Conversation, Interview


class TalkProjection:
    name = "talk"
    order = 31
    kinds = frozenset({CONVERSATION_HELD, INTERVIEW_ANSWERED})
    in_log_order = True

    def reset(self, simulation: Simulation) -> None:
        Conversation.objects.filter(simulation=simulation).delete()
        Interview.objects.filter(simulation=simulation).delete()

    def apply(self, simulation: Simulation, events: Sequence[Event]) -> None:
        for event in events:
            if event.kind == INTERVIEW_ANSWERED:
                p = event.payload
                Interview.objects.create(
                    simulation=simulation,
                    agent=Agent.objects.get(simulation=simulation, name=event.agent),
                    number=Interview.objects.filter(simulation=simulation).count() + 1,
                    session=p["session"],
                    persona=p["persona"],
                    question=p["question"],
                    answer=p["answer"],
                    remembered=p.get("remembered", False),
                    step=event.step,
                    sim_time=event.sim_time,
                )
            else:
                Conversation.objects.create(
                    simulation=simulation,
                    number=Conversation.objects.filter(simulation=simulation).count() + 1,
                    participants=event.payload["participants"],
                    lines=event.payload["lines"],
                    summary=event.payload.get("summary", ""),
                    address=event.payload.get("address", ""),
                    step=event.step,
                    started=event.sim_time,
                )

    def snapshot(self, simulation: Simulation) -> Any:
        conversations = list(
            Conversation.objects.filter(simulation=simulation)
            .order_by("number")
            .values("number", "participants", "lines", "summary", "address", "step", "started")
        )
        interviews = list(
            Interview.objects.filter(simulation=simulation)
            .order_by("number")
            .values("number", "agent__name", "session", "persona", "question", "answer", "step")
        )
        return {"conversations": conversations, "interviews": interviews}
