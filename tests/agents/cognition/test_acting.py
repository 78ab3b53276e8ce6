"""Acting, one step of one resident: carry on, walk a tile, claim the object on arrival or
wait by it while someone else uses it. No database: the step's reads are given."""

from __future__ import annotations

from typing import Any

from agents.cognition.acting import act, setter_of, taken
from agents.cognition.mind import Mind
from agents.events import AGENT_ACTING, AGENT_MOVED, OBJECT_STATE
from world.models import Agent

from .minds import mind_of

BED = "Elmwood:Quill Cottage:loft:bed"
DESK = "Elmwood:Quill Cottage:loft:writing desk"


def odile(setters: dict[str, tuple[str, str]] | None = None, **fields: Any) -> Mind:
    """Odile at step 10 of a run of 10-second steps."""
    agent = Agent(name="Odile Varga", tile_x=3, tile_y=4, **fields)
    return mind_of(agent, setters=setters)


def kinds(mind: Mind) -> list[str]:
    return [draft.kind for draft in mind.out]


def test_a_resident_talking_does_nothing_else_until_the_talk_ends() -> None:
    mind = odile(chatting_with="Bram Oduya", busy_until_step=12, path=[[3, 5]])
    act(mind)
    assert mind.out == []


def test_a_busy_resident_carries_on() -> None:
    mind = odile(busy_until_step=11, action="reading")
    act(mind)
    assert mind.out == []


def test_a_walking_resident_takes_one_tile_a_step() -> None:
    mind = odile(path=[[3, 5], [3, 6]], action_address=BED, action_object_state="asleep")
    act(mind)
    assert kinds(mind) == [AGENT_MOVED]
    assert mind.out[0].payload == {"tile": [3, 5]}


def test_on_arrival_the_object_takes_the_action_state() -> None:
    mind = odile(path=[[3, 5]], action_address=BED, action_object_state="asleep")
    act(mind)
    assert kinds(mind) == [AGENT_MOVED, OBJECT_STATE]
    assert mind.out[1].agent == "Odile Varga"
    assert mind.out[1].payload == {"address": BED, "state": "asleep"}


def test_a_bed_someone_else_sleeps_in_makes_the_resident_wait_a_minute_by_it() -> None:
    mind = odile(
        {BED: ("asleep", "Bram Oduya")},
        path=[[3, 5]],
        action_address=BED,
        action_object_state="asleep",
    )
    act(mind)
    assert kinds(mind) == [AGENT_MOVED, AGENT_ACTING]
    waiting = mind.out[1].payload
    assert waiting["action"] == "waiting to use the bed"
    assert waiting["address"] == "Elmwood:Quill Cottage:loft"  # in its arena, not on it
    assert (waiting["start_step"], waiting["end_step"]) == (10, 16)  # 60 s of 10 s steps


def test_who_holds_an_object() -> None:
    setters = {
        BED: ("asleep", "Bram Oduya"),
        DESK: ("in use", "Bram Oduya"),
        "Elmwood:Quill Cottage:loft:lamp": ("idle", "Bram Oduya"),
        "Elmwood:Quill Cottage:loft:stove": ("burning", ""),  # a user set it
    }
    mind = odile(setters)
    assert setter_of(mind, BED) == "Bram Oduya"
    assert setter_of(mind, "Elmwood:Quill Cottage:loft:lamp") == ""  # idle: nobody's
    assert setter_of(mind, "Elmwood:Quill Cottage:loft:stove") == ""
    assert setter_of(mind, "Elmwood:Quill Cottage:loft:chair") == ""
    # Only one resident at a time in a bed; a desk is shared.
    assert taken(mind, BED)
    assert not taken(mind, DESK)
    assert not taken(odile({BED: ("asleep", "Odile Varga")}), BED)  # its own
