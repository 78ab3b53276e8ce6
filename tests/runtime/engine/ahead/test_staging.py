"""Where a staged event goes in the barrier's order (runtime/engine/ahead/staging.py):
with its decider's events, else among the reflections added after all decisions,
delivered before requested."""

from __future__ import annotations

from agents.events import REFLECTION_REQUESTED
from runtime.engine.ahead.staging import (
    ORDER_DECISION,
    ORDER_DELIVERY,
    ORDER_REQUEST,
    _order_key,
)
from world.eventlog import EventDraft


def test_decided_events_keep_their_decider_and_reflections_come_after() -> None:
    walked = EventDraft(kind="agent.moved", agent="Wren Oyelaran", payload={})
    asked = EventDraft(kind=REFLECTION_REQUESTED, agent="Bastian Kettering", payload={})
    delivered = EventDraft(kind="reflection.created", agent="Anouk Varga", payload={})
    decider = {id(walked): "Bastian Kettering"}  # decided by a resident other than its agent

    keys = [_order_key(draft, decider) for draft in (asked, delivered, walked)]

    assert keys == [
        (ORDER_REQUEST, "Bastian Kettering"),
        (ORDER_DELIVERY, "Anouk Varga"),
        (ORDER_DECISION, "Bastian Kettering"),
    ]
    assert sorted(keys)[0] == (ORDER_DECISION, "Bastian Kettering")
