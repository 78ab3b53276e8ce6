"""The agents layer's event builders: each kind's payload shape, without a database.

Projections and rebuilds read these payloads by key, so which keys are present for which
arguments is the contract checked here.
"""

from __future__ import annotations

import json
from datetime import datetime

from agents import events, payloads
from world.eventlog import EventDraft

MORNING = datetime(2023, 2, 13, 9, 0)
NINE_THIRTY = datetime(2023, 2, 13, 9, 30)
ACTING_KEYS = {"action", "emoji", "address", "spo", "start_step", "end_step", "path"}


def _acting(**extra: str) -> EventDraft:
    return events.agent_acting(
        agent="Isabella Rodriguez",
        action="serving coffee",
        emoji="☕",
        address="the Ville:Hobbs Cafe:cafe:behind the cafe counter",
        spo=("Isabella Rodriguez", "serve", "coffee"),
        start_step=10,
        end_step=25,
        path=[(72, 14), (73, 14)],
        **extra,
    )


def test_agent_acting_without_a_conversation_has_only_the_required_keys() -> None:
    draft = _acting()
    assert draft.kind == events.AGENT_ACTING == "agent.acting"
    assert draft.agent == "Isabella Rodriguez"
    assert draft.payload == {
        "action": "serving coffee",
        "emoji": "☕",
        "address": "the Ville:Hobbs Cafe:cafe:behind the cafe counter",
        "spo": ["Isabella Rodriguez", "serve", "coffee"],
        "start_step": 10,
        "end_step": 25,
        "path": [[72, 14], [73, 14]],
    }


def test_agent_acting_sets_chatting_with_and_conversation_only_when_given() -> None:
    chatting = _acting(chatting_with="Klaus Mueller")
    assert set(chatting.payload) == ACTING_KEYS | {"chatting_with"}
    assert chatting.payload["chatting_with"] == "Klaus Mueller"

    both = _acting(chatting_with="Klaus Mueller", conversation="Klaus Mueller")
    assert set(both.payload) == ACTING_KEYS | {"chatting_with", "conversation"}
    assert both.payload["conversation"] == "Klaus Mueller"

    empty = _acting(chatting_with="", conversation="")
    assert set(empty.payload) == ACTING_KEYS


def test_agent_acting_walks_nowhere_by_default() -> None:
    draft = events.agent_acting(
        agent="A", action="reading", emoji="📖", address="x", spo=[], start_step=1, end_step=2
    )
    assert draft.payload["path"] == []


def test_standing_still_is_an_empty_action_at_one_step() -> None:
    draft = events.agent_stand_still(
        agent="Klaus Mueller", step=42, address="the Ville:Johnson Park"
    )
    assert draft.kind == events.AGENT_ACTING
    assert draft.agent == "Klaus Mueller"
    assert draft.payload == {
        "action": "",
        "emoji": "",
        "address": "the Ville:Johnson Park",
        "spo": [],
        "start_step": 42,
        "end_step": 42,
        "path": [],
    }


def test_tiles_become_lists_of_ints_whatever_sequence_they_came_as() -> None:
    headed = events.agent_headed(
        agent="A", destination="the Ville:Hobbs Cafe:cafe", path=[(1, 2), [3, 4]], action="go"
    )
    assert headed.payload == {
        "destination": "the Ville:Hobbs Cafe:cafe",
        "path": [[1, 2], [3, 4]],
        "action": "go",
    }
    assert events.agent_moved(agent="A", tile=(5, 6)).payload == {"tile": [5, 6]}


def test_agent_created_adds_the_tile_to_the_identity_and_the_tile_wins() -> None:
    draft = events.agent_created(
        agent="Maria Lopez", identity={"age": 21, "tile": [0, 0]}, tile=(30, 40)
    )
    assert draft.kind == events.AGENT_CREATED
    assert draft.payload == {"age": 21, "tile": [30, 40]}


def test_chat_cooldown_names_its_conversation_only_when_given() -> None:
    plain = events.agent_chat_cooldown(agent="A", partner="B", until_step=90)
    assert plain.kind == events.AGENT_CHAT_COOLDOWN == "agent.chat_cooldown"
    assert plain.payload == {"partner": "B", "until_step": 90}

    tagged = events.agent_chat_cooldown(agent="A", partner="B", until_step=90, conversation="A")
    assert tagged.payload == {"partner": "B", "until_step": 90, "conversation": "A"}


def test_plan_item_holds_only_the_keys_passed() -> None:
    item = events.plan_item(level="day", description="open the cafe", start=MORNING, minutes=60)
    assert item == {
        "level": "day",
        "description": "open the cafe",
        "start": "2023-02-13T09:00:00",
        "duration_minutes": 60,
    }


def test_plan_item_with_every_optional_key() -> None:
    item = events.plan_item(
        level="task",
        description="brew coffee",
        start=NINE_THIRTY,
        minutes=15,
        address="the Ville:Hobbs Cafe:cafe:behind the cafe counter",
        emoji="☕",
        spo=("Isabella Rodriguez", "brew", "coffee"),
        parent_index=0,
        parent_start=MORNING,
    )
    assert item == {
        "level": "task",
        "description": "brew coffee",
        "start": "2023-02-13T09:30:00",
        "duration_minutes": 15,
        "address": "the Ville:Hobbs Cafe:cafe:behind the cafe counter",
        "emoji": "☕",
        "spo": ["Isabella Rodriguez", "brew", "coffee"],
        "parent_index": 0,
        "parent_start": "2023-02-13T09:00:00",
    }


def test_plan_item_keeps_falsy_values_that_were_passed() -> None:
    # None means "not given"; an empty emoji or triple, or parent 0, is a value.
    item = events.plan_item(
        level="hour", description="d", start=MORNING, minutes=5, emoji="", spo=[], parent_index=0
    )
    assert item["emoji"] == ""
    assert item["spo"] == []
    assert item["parent_index"] == 0
    assert "address" not in item and "parent_start" not in item


def test_plan_made_carries_its_items_in_order() -> None:
    first = events.plan_item(level="day", description="a", start=MORNING, minutes=60)
    second = events.plan_item(
        level="hour", description="b", start=MORNING, minutes=30, parent_index=0
    )
    draft = events.plan_made(agent="Isabella Rodriguez", items=[first, second])
    assert draft.kind == events.PLAN_MADE == "plan.made"
    assert draft.payload == {"items": [first, second]}


def test_plan_revised_puts_the_time_under_from() -> None:
    draft = events.plan_revised(agent="A", since="2023-02-13T09:30:00")
    assert draft.kind == events.PLAN_REVISED == "plan.revised"
    assert draft.payload == {"from": "2023-02-13T09:30:00"}

    tagged = events.plan_revised(agent="A", since="2023-02-13T09:30:00", conversation="B")
    assert tagged.payload == {"from": "2023-02-13T09:30:00", "conversation": "B"}


def test_object_state_is_a_users_event_unless_an_agent_is_named() -> None:
    stove = "the Ville:Hobbs Cafe:cafe:cooking area"
    by_user = events.object_state(address=stove, state="burning")
    assert by_user.kind == events.OBJECT_STATE == "object.state"
    assert by_user.agent == ""
    assert by_user.payload == {"address": stove, "state": "burning"}
    assert events.object_state(address=stove, state="in use", agent="A").agent == "A"


def test_conversation_held_names_its_conversation_only_when_given() -> None:
    lines: list[payloads.ConversationLine] = [
        {"speaker": "Isabella Rodriguez", "text": "Coming to the party?"},
        {"speaker": "Klaus Mueller", "text": "Sure."},
    ]

    def held(conversation: str = "") -> EventDraft:
        return events.conversation_held(
            agent="Isabella Rodriguez",
            participants=["Isabella Rodriguez", "Klaus Mueller"],
            lines=lines,
            summary="an invitation",
            address="the Ville:Hobbs Cafe:cafe",
            conversation=conversation,
        )

    plain = held()
    assert plain.kind == events.CONVERSATION_HELD == "conversation.held"
    assert set(plain.payload) == {"participants", "lines", "summary", "address"}
    assert plain.payload["lines"] == lines

    tagged = held(conversation="Isabella Rodriguez")
    assert tagged.payload["conversation"] == "Isabella Rodriguez"


def test_a_reflection_done_and_a_failed_one_share_a_kind_not_a_shape() -> None:
    done = events.reflection_done(
        agent="A", due_step=300, questions=["q1", "q2"], reflections=3, dropped_citations=[7]
    )
    failed = events.reflection_failed(agent="A", due_step=300, error="model unavailable")
    assert done.kind == failed.kind == events.REFLECTION_DONE == "reflection.done"
    assert done.payload == {
        "due_step": 300,
        "questions": ["q1", "q2"],
        "reflections": 3,
        "dropped_citations": [7],
    }
    assert failed.payload == {"due_step": 300, "failed": True, "error": "model unavailable"}


def test_reflection_requested() -> None:
    draft = events.reflection_requested(agent="A", due_step=12, importance=150)
    assert draft.kind == events.REFLECTION_REQUESTED == "reflection.requested"
    assert draft.payload == {"due_step": 12, "importance": 150}


def test_payload_shapes_of_the_simple_agent_events() -> None:
    cases = [
        (events.agent_arrived(agent="A", action="a", busy_until_step=9), events.AGENT_ARRIVED,
         {"action": "a", "busy_until_step": 9}),
        (events.agent_perceived(agent="A", observations=["bed is idle"]), events.AGENT_PERCEIVED,
         {"observations": ["bed is idle"]}),
        (events.agent_summarized(agent="A", summary="s", date="2023-02-13"),
         events.AGENT_SUMMARIZED, {"summary": "s", "date": "2023-02-13"}),
        (events.agent_day_planned(agent="A", date="2023-02-13"), events.AGENT_DAY_PLANNED,
         {"date": "2023-02-13"}),
        (events.agent_learned(agent="A", sector="s", arena="r", objects=["bed"]),
         events.AGENT_LEARNED, {"sector": "s", "arena": "r", "objects": ["bed"]}),
        (events.agent_whispered(agent="A", statement="call Klaus"), events.AGENT_WHISPERED,
         {"statement": "call Klaus"}),
        (events.agent_thought_handled(agent="A"), events.AGENT_THOUGHT_HANDLED, {}),
        (events.agent_control(agent="A", user_controlled=True), events.AGENT_CONTROL,
         {"user_controlled": True}),
        (events.interview_answered(agent="A", session="s1", persona="reporter", question="q",
                                   answer="a", remembered=False),
         events.INTERVIEW_ANSWERED,
         {"session": "s1", "persona": "reporter", "question": "q", "answer": "a",
          "remembered": False}),
    ]  # fmt: skip
    for draft, kind, payload in cases:
        assert (draft.kind, draft.agent, draft.payload) == (kind, "A", payload)


def test_payloads_survive_the_json_round_trip_of_the_log() -> None:
    # Rebuilds read payloads back from jsonb: a tuple left in a payload would come back
    # as a list and the rebuilt state would differ from the live one.
    drafts = [
        _acting(chatting_with="B", conversation="B"),
        events.agent_stand_still(agent="A", step=1, address="x"),
        events.agent_headed(agent="A", destination="x", path=[(1, 2)], action="go"),
        events.agent_created(agent="A", identity={"age": 3}, tile=(1, 2)),
        events.plan_made(
            agent="A",
            items=[
                events.plan_item(
                    level="day", description="d", start=MORNING, minutes=1, spo=("a", "b", "c")
                )
            ],
        ),
    ]
    for draft in drafts:
        assert json.loads(json.dumps(draft.payload)) == draft.payload, draft.kind


def test_idle_is_the_empty_word_or_idle() -> None:
    assert events.is_idle("")
    assert events.is_idle(events.IDLE)
    assert not events.is_idle("burning")
    assert not events.is_idle("Idle ")
