"""Tests of the cognition API and admin: plans, conversations and what residents do.

`stage` writes, through the event log, a plan, a re-plan, a current action, object states
and conversations, so most tests need no model and no run.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from rest_framework.test import APIClient

from agents.events import AGENT_ACTING, CONVERSATION_HELD, OBJECT_STATE, PLAN_MADE, PLAN_REVISED
from tests.api import create
from world.eventlog import EventDraft, events_append
from world.models import Simulation

ISABELLA, KLAUS, MARIA = "Isabella Rodriguez", "Klaus Mueller", "Maria Lopez"
# Step 0 is 11:30 on Monday 13 February 2023; a step is 20 sim seconds.
START = datetime(2023, 2, 13, 11, 30, tzinfo=UTC)
CAFE = "the Ville:Hobbs Cafe:cafe"
COUNTER = f"{CAFE}:cafe customer seating"


def _item(level: str, description: str, start: str, minutes: int, **more: Any) -> dict[str, Any]:
    return {
        "level": level,
        "description": description,
        "start": f"2023-02-{start}:00+00:00",
        "duration_minutes": minutes,
        **more,
    }


# Isabella's plan for the 13th (and one item of the 12th, which is another day).
DAY_PLAN = [
    _item("day", "wake up and get ready", "13T07:00", 60),  # 0
    _item("day", "open and run Hobbs Cafe", "13T08:00", 240),  # 1
    _item("day", "have lunch", "13T12:00", 60),  # 2
    _item("day", "go to bed", "13T22:00", 120),  # 3
    _item("hour", "serve the late-morning customers", "13T11:00", 60, address=CAFE, parent_index=1),
    _item("hour", "prepare the counter", "13T10:00", 60, address=CAFE, parent_index=1),
    _item("hour", "eat lunch at the cafe", "13T12:00", 60, address=CAFE, parent_index=2),
    _item("hour", "read before sleeping", "13T23:00", 120, parent_index=3),
]
ACTIONS = [
    _item(
        "action",
        f"{verb}",
        f"13T{start}",
        15,
        address=COUNTER,
        emoji=emoji,
        spo=["Isabella Rodriguez", "is", verb],
        parent_start="2023-02-13T11:00:00+00:00",
    )
    for verb, start, emoji in [
        ("taking orders", "11:00", "📝"),
        ("making coffee", "11:15", "☕"),
        ("serving customers", "11:30", "🍽️"),
        ("wiping the tables", "11:45", "🧽"),
    ]
]
# After midnight, but under the block begun at 23:00 on the 13th.
LATE = _item("action", "reading a novel", "14T00:30", 30, parent_start="2023-02-13T23:00:00+00:00")
YESTERDAY = _item("day", "bake bread", "12T09:00", 60)
REPLACEMENT = _item(
    "action",
    "chatting with Klaus",
    "13T11:45",
    15,
    emoji="💬",
    parent_start="2023-02-13T11:00:00+00:00",
)

CONVERSATIONS = [  # (step, participants, summary)
    (1, [ISABELLA, KLAUS], "about the Valentine's Day party"),
    (5, [MARIA, KLAUS], "about physics homework"),
    (9, [ISABELLA, MARIA], "about the cafe's new menu"),
]


def stage(api: APIClient) -> Simulation:
    """A simulation at step 0 (11:30 sim time) whose log holds Isabella's plan, a re-plan,
    her current action, an object state, and three conversations (steps 1, 5 and 9)."""
    created = create(api, start_time=START.isoformat(), sec_per_step=20)
    simulation = Simulation.objects.get(pk=created["id"])
    drafts = [
        EventDraft(kind=PLAN_MADE, agent=ISABELLA, payload={"items": [YESTERDAY]}),
        EventDraft(kind=PLAN_MADE, agent=ISABELLA, payload={"items": DAY_PLAN}),
        EventDraft(kind=PLAN_MADE, agent=ISABELLA, payload={"items": ACTIONS}),
        EventDraft(
            kind=PLAN_REVISED, agent=ISABELLA, payload={"from": "2023-02-13T11:50:00+00:00"}
        ),
        EventDraft(kind=PLAN_MADE, agent=ISABELLA, payload={"items": [REPLACEMENT, LATE]}),
        EventDraft(
            kind=AGENT_ACTING,
            agent=ISABELLA,
            payload={
                "action": "serving customers",
                "emoji": "🍽️",
                "address": COUNTER,
                "spo": ["Isabella Rodriguez", "is", "serving customers"],
                "start_step": 0,
                "end_step": 45,
                "path": [[72, 15], [72, 16]],
            },
        ),
        EventDraft(
            kind=OBJECT_STATE,
            agent=ISABELLA,
            payload={"address": f"{CAFE}:cafe counter", "state": "being cleaned"},
        ),
    ]
    events_append(simulation=simulation, drafts=drafts, step=0)
    for step, participants, summary in CONVERSATIONS:
        lines = [
            {"speaker": participants[0], "text": "Hello!"},
            {"speaker": participants[1], "text": f"Hi, let's talk {summary}."},
        ]
        payload = {"participants": participants, "lines": lines, "summary": summary}
        events_append(
            simulation=simulation,
            drafts=[EventDraft(kind=CONVERSATION_HELD, payload={**payload, "address": CAFE})],
            step=step,
        )
    return simulation
