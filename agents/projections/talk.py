"""The projection of what residents said and were asked: conversations and interviews,
each numbered per simulation in log order.

Numbers across the whole simulation depend on the order of events between residents,
so this projection is applied in log order (`in_log_order`): when the events are
appended, also under the engine that projects a group's events before its step is in
the log (runtime/engine/ahead), where residents far apart may commit out of log
order. Nothing a resident decides reads these tables.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agents.events import CONVERSATION_HELD, INTERVIEW_ANSWERED
from agents.models import Conversation, Interview
from world.models import Agent, Event, Simulation


class TalkProjection:
    name = "talk"
    order = 31
    kinds = frozenset({CONVERSATION_HELD, INTERVIEW_ANSWERED})
    in_log_order = True

    def reset(self, simulation: Simulation) -> None:
        Conversation.objects.filter(simulation=simulation).delete()
        Interview.objects.filter(simulation=simulation).delete()

    def apply(self, simulation: Simulation, events: Sequence[Event]) -> None:
        """Numbered on from each table's count, read once for the batch."""
        held = [e for e in events if e.kind == CONVERSATION_HELD]
        answered = [e for e in events if e.kind == INTERVIEW_ANSWERED]
        if held:
            first = Conversation.objects.filter(simulation=simulation).count() + 1
            Conversation.objects.bulk_create(
                Conversation(
                    simulation=simulation,
                    number=number,
                    participants=event.payload["participants"],
                    lines=event.payload["lines"],
                    summary=event.payload.get("summary", ""),
                    address=event.payload.get("address", ""),
                    step=event.step,
                    started=event.sim_time,
                )
                for number, event in enumerate(held, first)
            )
        if answered:
            first = Interview.objects.filter(simulation=simulation).count() + 1
            agent_ids = dict(
                Agent.objects.filter(
                    simulation=simulation, name__in={e.agent for e in answered}
                ).values_list("name", "pk")
            )
            Interview.objects.bulk_create(
                Interview(
                    simulation=simulation,
                    agent_id=agent_ids[event.agent],
                    number=number,
                    session=event.payload["session"],
                    persona=event.payload["persona"],
                    question=event.payload["question"],
                    answer=event.payload["answer"],
                    remembered=event.payload.get("remembered", False),
                    step=event.step,
                    sim_time=event.sim_time,
                )
                for number, event in enumerate(answered, first)
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
