"""Offline policies of what residents do at objects: the actions that fill an hour block
(only at the objects the arena has), and what an alarming object state makes them do."""

from __future__ import annotations

import random

from llm.tasks import Inputs

# activity keyword -> (action description, object keywords, emoji, object state)
_ACTIONS: list[tuple[tuple[str, ...], list[tuple[str, tuple[str, ...], str, str]]]] = [
    (
        ("waking", "breakfast"),
        [
            ("waking up and stretching", ("bed",), "🥱", "being made"),
            ("brushing teeth", ("sink", "bathroom"), "🪥", "running water"),
            ("taking a shower", ("shower", "bathroom"), "🚿", "running"),
            ("getting dressed", ("closet", "wardrobe"), "👕", "open"),
            (
                "making breakfast",
                ("kitchen", "stove", "cooking", "refrigerator"),
                "🍳",
                "cooking breakfast",
            ),
            ("eating breakfast", ("table", "desk", "seating"), "🥣", "in use"),
        ],
    ),
    (
        ("lunch", "dinner", "eating"),
        [
            (
                "getting food",
                ("counter", "refrigerator", "kitchen", "cooking"),
                "🍽️",
                "serving food",
            ),
            ("eating a meal", ("seating", "table", "desk"), "🍲", "in use"),
        ],
    ),
    (
        ("cafe", "counter", "serving"),
        [
            ("serving customers at the counter", ("counter",), "☕", "taking orders"),
            ("brewing coffee", ("cooking", "coffee", "kitchen"), "☕", "brewing coffee"),
            ("cleaning the tables", ("seating", "table"), "🧽", "being cleaned"),
            ("washing cups", ("sink",), "🧼", "full of cups"),
        ],
    ),
    (
        ("studying", "library", "class", "research", "writing"),
        [
            ("reading and taking notes", ("table", "desk", "bookshelf", "shelf"), "📚", "in use"),
            ("writing a research paper", ("desk", "table", "computer"), "✍️", "in use"),
            ("looking up sources", ("bookshelf", "shelf", "computer"), "🔎", "being browsed"),
        ],
    ),
    (
        ("pub", "drink"),
        [
            ("having a drink at the bar", ("bar", "seating", "counter"), "🍺", "busy"),
            ("chatting with the regulars", ("seating", "table"), "🗣️", "busy"),
        ],
    ),
    (
        ("park", "walk"),
        [("taking a walk in the park", ("garden", "bench", "park"), "🌳", "visited")],
    ),
    (
        ("relaxing", "staying up", "home", "projects", "working"),
        [
            ("working at the desk", ("desk", "computer", "easel", "piano"), "💻", "in use"),
            ("reading a book", ("shelf", "bookshelf", "sofa", "bed", "desk"), "📖", "in use"),
            ("tidying up", ("closet", "shelf", "table"), "🧹", "being tidied"),
        ],
    ),
]


def _pick_object(objects: list[str], keywords: tuple[str, ...]) -> str:
    for keyword in keywords:
        for item in objects:
            if keyword in item.lower():
                return item
    return ""


def actions_for(inputs: Inputs, rng: random.Random) -> list[tuple[str, int, str, str, str]]:
    """(description, minutes, object, emoji, object state) adding up to the block."""
    block = str(inputs["block"]).lower()
    total = int(str(inputs["duration_minutes"]))
    objects = [o.strip() for o in str(inputs["objects"]).split(",") if o.strip()]
    menu = next(
        (acts for words, acts in _ACTIONS if any(w in block for w in words)), _ACTIONS[-1][1]
    )
    # Only what the arena has the objects for: no shower in a bedroom without one.
    doable = [(d, _pick_object(objects, k), e, s) for d, k, e, s in menu]
    doable = [a for a in doable if a[1]] or [(block, objects[0] if objects else "", "🙂", "in use")]
    actions, used, index = [], 0, 0
    while used < total:
        description, item, emoji, state = doable[index % len(doable)]
        minutes = min(total - used, rng.choice((5, 10, 10, 15)))
        if total - used - minutes < 5:
            minutes = total - used
        actions.append((description, minutes, item, emoji, state))
        used += minutes
        index += 1
    return actions


# object state words that call for someone to act -> what they do
_ALARMS = [
    (("burning", "on fire", "smoking", "fire"), "putting out the fire at the {object}"),
    (("leaking", "flooding", "overflowing"), "stopping the {object} from leaking"),
    (("broken", "jammed", "stuck"), "fixing the {object}"),
    (("left on", "running", "ringing", "beeping"), "turning off the {object}"),
]


def respond_to(obj: str, state: str) -> str | None:
    """What a resident does about an object in an alarming state; None to carry on."""
    lowered = state.lower()
    for words, action in _ALARMS:
        if any(word in lowered for word in words):
            return action.format(object=obj)
    return None
