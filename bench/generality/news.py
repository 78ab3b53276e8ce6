"""Generated news, intentions and questions: events of many kinds, each with a made-up
name ("the Korwick Cup", "Storm Ellina") that no other text of its world holds, the
statements that announce them, intentions whispered with a time and a place, and the
questions of an interview about the news and about the resident's own plan."""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple


class EventKind(NamedTuple):
    """A kind of news: its name from a made-up `{key}`, what it is ("chess tournament",
    the words a holder's answer may use) and how it is announced (`{name}`, `{place}`,
    `{when}`, `{person}`; the name capitalised as `{Name}`)."""

    kind: str
    name: str
    statement: str


def _kinds() -> tuple[EventKind, ...]:
    data = json.loads((Path(__file__).with_name("events.json")).read_text())
    return tuple(EventKind(**kind) for kind in data["kinds"])


EVENT_KINDS = _kinds()

# When an event is, in words relative to the day it is announced.
WHEN = (
    "this Saturday at 2 pm", "tomorrow evening at 7", "on Friday from 10 to noon",
    "next Tuesday at 6 in the evening", "tonight at 8", "the day after tomorrow at 11",
    "on Sunday afternoon", "this Thursday at half past five", "at noon tomorrow",
    "next week on Wednesday",
)  # fmt: skip

NEWS_QUESTIONS = (
    "Have you heard anything about {name}?",
    "What do you know about {name}?",
    "Any news about {name}?",
    "Has anyone told you about {name}?",
    "What's going on at {place} this week?",
    "Is anything happening at {place} soon?",
    "Do you know what {name} is about?",
    "What have people been saying about {name}?",
    "Tell me what you know of {name}.",
    "Is there any word on {name}?",
    "Did you catch the news about {name}?",
    "What's the latest on {name}?",
    "Heard any talk of {name} lately?",
    "Could you fill me in on {name}?",
    "What's this I hear about {name}?",
    "Are you aware of {name}?",
    "What's new at {place}?",
    "Anything special planned at {place}?",
    "Why is everyone talking about {name}?",
    "What can you tell me about {name}?",
    "Has {name} come up in conversation?",
    "Do you have any news about {name}?",
    "I keep hearing about {name}. What is it?",
    "When is {name}, do you know?",
    "Where is {name} happening?",
    "Has anybody mentioned {name} to you?",
    "What do folks at {place} have going on?",
    "Is there something on at {place} I should know about?",
    "Do you know anything about {name}?",
    "Have you been told about {name} yet?",
    "Any idea what {name} is?",
    "Someone mentioned {name}. Does that ring a bell?",
)

PLAN_QUESTIONS = (
    "Where will you be at {t}?",
    "What are you doing at {t}?",
    "Where can I find you at {t} today?",
    "What's your plan for {t}?",
    "If I came looking for you at {t}, where would you be?",
    "What will you be up to at {t}?",
    "Where are you headed at {t}?",
    "At {t}, where will you be?",
    "Are you busy at {t}? Where will you be?",
    "Where should I look for you at {t}?",
    "What do you have on at {t}?",
    "Where do you plan to be around {t}?",
    "What's on your schedule at {t}?",
    "Where will I find you around {t}?",
    "What are your plans at {t} today?",
    "Tell me where you'll be at {t}.",
    "Could we meet where you'll be at {t}? Where is that?",
    "What will you be doing around {t}?",
    "Where are you going to be at {t}?",
    "Say I need you at {t}: where are you?",
    "What's planned for you at {t}?",
    "Where do you expect to be at {t}?",
    "At about {t}, what will you be doing?",
    "Where's your day taking you at {t}?",
    "Where are you at {t} today?",
    "How will you be spending {t}?",
    "Which place will you be at {t}?",
    "Where will you spend the time around {t}?",
    "What does your day look like at {t}?",
    "Where are you supposed to be at {t}?",
    "What are you up to at {t}?",
)

INTENTIONS = (
    "I should go to {place} at {t} to {purpose}.",
    "At {t} I'll stop by {place} and {purpose}.",
    "I want to be at {place} by {t} to {purpose}.",
    "Don't forget: {place} at {t}, to {purpose}.",
    "I'll head over to {place} around {t} to {purpose}.",
    "Today at {t} I need to be at {place}; I'm going to {purpose}.",
    "I mean to {purpose} at {place}, {t} today.",
    "Note to self: {t}, {place}, {purpose}.",
)
PURPOSES = (
    "ask {person} to teach me to mend nets",
    "return the ladder I borrowed from {person}",
    "pick up the parcel {person} left for me",
    "help {person} paint the fence",
    "talk to {person} about the rent",
    "hear {person}'s plans for the summer",
    "give {person} the jam I made",
    "settle the bill {person} sent me",
    "show {person} my sketches",
    "apologise to {person} for last week",
)  # fmt: skip
