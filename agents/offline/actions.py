"""Offline policies of what residents do at objects: the actions that fill an hour block
(only at the objects the arena has), and what an alarming object state makes them do.

The morning is a routine done once, in order (waking up first), then the rest of the block
at home; other blocks cycle through their menu. Only waking up uses the bed: a bed takes one
resident at a time, so reading on it would make a household queue for it all day."""

from __future__ import annotations

import random

from llm.tasks import Inputs

# (action description, object keywords, emoji, object state)
Menu = list[tuple[str, tuple[str, ...], str, str]]
_MORNING: Menu = [
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
]
_RELAXING: Menu = [
    ("reading a book", ("sofa", "bookshelf", "shelf", "desk", "table"), "📖", "in use"),
    ("tidying up", ("closet", "shelf", "table"), "🧹", "being tidied"),
    ("writing in a journal", ("desk", "table"), "📓", "in use"),
]
# activity keywords -> menu; the first that the block names wins
_ACTIONS: list[tuple[tuple[str, ...], Menu]] = [
    (("waking", "breakfast"), _MORNING),
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
        ("relaxing at hobbs", "coffee at"),  # a customer, not the one behind the counter
        [
            ("having a coffee", ("customer seating", "seating", "table"), "☕", "in use"),
            ("reading a book", ("customer seating", "seating", "sofa"), "📖", "in use"),
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
        ("store", "market", "pharmacy", "shop"),
        [
            ("serving customers at the counter", ("behind the", "counter"), "🛒", "serving"),
            ("restocking the shelves", ("shelf",), "📦", "being restocked"),
            ("helping a customer find something", ("shelf", "counter"), "🙋", "in use"),
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
    (("relaxing", "staying up"), _RELAXING),
    (
        ("home", "projects", "working"),
        [
            ("working at the desk", ("desk", "computer", "easel", "piano"), "💻", "in use"),
            ("reading and taking notes", ("desk", "table", "shelf"), "📚", "in use"),
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


def actions_for(
    inputs: Inputs, rng: random.Random, *, max_actions: int
) -> list[tuple[str, int, str, str, str]]:
    """(description, minutes, object, emoji, object state) adding up to the block, in at
    most `max_actions` actions (a long block gets longer ones)."""
    block = str(inputs["block"]).lower()
    total = int(str(inputs["duration_minutes"]))
    objects = [o.strip() for o in str(inputs["objects"]).split(",") if o.strip()]

    def doable(menu: Menu) -> list[tuple[str, str, str, str]]:
        # Only what the arena has the objects for: no shower in a bedroom without one.
        picked = [(d, _pick_object(objects, k), e, s) for d, k, e, s in menu]
        return [a for a in picked if a[1]]

    menu = next(
        (acts for words, acts in _ACTIONS if any(w in block for w in words)), _ACTIONS[-1][1]
    )
    once: list[tuple[str, str, str, str]] = []
    if menu is _MORNING:  # each step once, waking up first (never again after breakfast)
        once, menu = doable(menu), _RELAXING
    spare = [o for o in objects if "bed" not in o.lower()] or objects  # a bed is for sleep
    cycle = doable(menu) or [(block, spare[0] if spare else "", "🙂", "in use")]
    actions: list[tuple[str, int, str, str, str]] = []
    used, index = 0, 0
    while used < total:
        step = once[index] if index < len(once) else cycle[(index - len(once)) % len(cycle)]
        description, item, emoji, state = step
        left, slots = total - used, max_actions - len(actions)
        minutes = min(left, max(rng.choice((5, 10, 10, 15)), -(-left // slots)))
        if left - minutes < 5 or slots == 1:
            minutes = left
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
