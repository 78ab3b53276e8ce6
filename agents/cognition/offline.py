"""Offline policies of the cognition tasks: rules, not a language model.

They read the same inputs the prompts render (identity, lifestyle, the places the agent
knows, what it remembers) and make a recognisable day: sleep and wake times from the
lifestyle, a workplace from the identity and daily plan requirement, meals, and
conversations that pass on what the speaker finds most important, so news spreads.
Deterministic for a given random generator, which the port seeds per call.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from llm.importance import importance_offline
from llm.tasks import Inputs

_TIME = re.compile(r"(\d{1,2})(?::(\d{2}))?\s*(am|pm)", re.IGNORECASE)


def lines_of(value: object) -> list[str]:
    """An input as lines, whether it came as a list or as text."""
    if isinstance(value, (list, tuple)):
        return [str(item) for item in value]
    return str(value).splitlines()


def hhmm(minutes: int) -> str:
    minutes = max(0, min(minutes, 24 * 60 - 1))
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def minutes_of(text: str) -> int:
    hours, _, mins = text.partition(":")
    return int(hours) * 60 + int(mins or 0)


def _clock(match: re.Match[str]) -> int:
    hour = int(match.group(1)) % 12 + (12 if match.group(3).lower() == "pm" else 0)
    return hour * 60 + int(match.group(2) or 0)


def times_in(text: str) -> dict[str, int]:
    """`bed`, `wake` and `dinner` times (minutes after midnight) named in a lifestyle."""
    found: dict[str, int] = {}
    for match in _TIME.finditer(text):
        before = text[max(0, match.start() - 30) : match.start()].lower()
        for key, words in (
            ("bed", ("bed", "sleep")),
            ("wake", ("wake", "awake", " up")),
            ("dinner", ("dinner",)),
        ):
            if key not in found and any(word in before for word in words):
                found[key] = _clock(match)
                break
    return found


def places_of(text: str) -> dict[str, list[str]]:
    """'sector: arena, arena' lines -> {sector: [arenas]}."""
    places: dict[str, list[str]] = {}
    for line in text.splitlines():
        sector, _, arenas = line.partition(":")
        if sector.strip():
            places[sector.strip()] = [a.strip() for a in arenas.split(",") if a.strip()]
    return places


@dataclass(frozen=True)
class Routine:
    wake: int
    bed: int
    dinner: int
    work_start: int
    work_end: int
    workplace: str  # a sector, or "" to work at home


_WORK_WORDS = ("work", "open", "student", "study", "owner", "teach", "professor", "shop")


def routine(inputs: Inputs) -> Routine:
    lifestyle = str(inputs["lifestyle"])
    requirement = str(inputs["daily_plan_requirement"])
    identity = f"{requirement} {inputs['summary']}"
    times = times_in(lifestyle)
    wake, bed = times.get("wake", 7 * 60), times.get("bed", 23 * 60)
    home_sector = (
        str(inputs["living_area"]).split(":")[1] if ":" in str(inputs["living_area"]) else ""
    )
    sectors = [s for s in places_of(str(inputs["places"])) if s != home_sector]
    workplace = ""
    for sector in sorted(sectors, key=lambda s: identity.find(s) if s in identity else 10**6):
        if sector in identity:
            workplace = sector
            break
    hours = [_clock(m) for m in _TIME.finditer(requirement)]
    if len(hours) >= 2 and hours[0] < hours[-1]:
        start, end = hours[0], hours[-1]
    elif "student" in identity.lower():
        start, end = 10 * 60, 16 * 60
    else:
        start, end = 9 * 60, 17 * 60
    start = max(start, wake + 60)
    end = min(end, 22 * 60) if bed < wake else min(end, bed - 90)  # bed after midnight?
    return Routine(wake, bed, times.get("dinner", 18 * 60), start, max(end, start + 60), workplace)


def day_plan(inputs: Inputs, rng: random.Random) -> list[tuple[str, int, int]]:
    """(description, start, duration) items in broad strokes."""
    r = routine(inputs)
    work = f"working at {r.workplace}" if r.workplace else "working on projects at home"
    if r.workplace and "student" in str(inputs["summary"]).lower():
        work = f"studying at {r.workplace}"
    places = places_of(str(inputs["places"]))
    evenings = [p for p in ("The Rose and Crown Pub", "Johnson Park", "Hobbs Cafe") if p in places]
    evening = f"relaxing at {rng.choice(evenings)}" if evenings else "relaxing at home"
    lunch = "having lunch at Hobbs Cafe" if "Hobbs Cafe" in places else "having lunch at home"
    items: list[tuple[str, int]] = []
    if r.bed < r.wake:
        items += [("staying up at home", 0), ("sleeping", r.bed)]
    else:
        items += [("sleeping", 0)]
    morning = "waking up and having breakfast"
    if r.work_start - r.wake > 90:
        morning += ", then relaxing at home"
    items += [(morning, r.wake), (work, r.work_start)]
    if r.work_start < 12 * 60 < r.work_end - 60:
        items += [(lunch, 12 * 60), (work, 13 * 60)]
    dinner = max(r.dinner, r.work_end)
    items += [("having dinner at home", dinner), (evening, dinner + 60)]
    if r.bed > r.wake:
        items += [("going to bed and sleeping", r.bed)]
    starts = [start for _, start in items] + [24 * 60]
    plan = []
    for (description, start), end in zip(items, starts[1:], strict=True):
        if end > start:
            plan.append((description, start, end - start))
    return plan


_SLEEP = ("sleep", "bed")


# activity words -> arena words, most wanted first
_ARENA_FOR = [
    (("stud", "class", "research", "library"), ("library", "classroom")),
    (("lunch", "dinner", "breakfast", "coffee", "cafe"), ("cafe", "kitchen")),
    (("drink", "pub", "bar"), ("pub",)),
    (("park", "walk"), ("park",)),
    (("shop", "store", "groceries", "supplies"), ("store", "supply store")),
]


def place_for(description: str, inputs: Inputs) -> tuple[str, str]:
    """A (sector, arena) the agent knows for an activity: the sector named in it, else home."""
    places = places_of(str(inputs["places"]))
    home = str(inputs["living_area"]).split(":")
    home_place = (
        (home[1], home[2])
        if len(home) >= 3
        else next(((s, a[0]) for s, a in places.items() if a), ("", ""))
    )
    lowered = description.lower()
    wanted = [
        arena
        for words, arenas in _ARENA_FOR
        if any(w in lowered for w in words)
        for arena in arenas
    ]
    for sector, arenas in places.items():
        if sector.lower() in lowered and arenas:
            for word in wanted:
                for arena in arenas:
                    if word in arena.lower():
                        return sector, arena
            return sector, arenas[0]
    return home_place


def hourly_blocks(inputs: Inputs, rng: random.Random) -> list[tuple[str, int, int, str, str]]:
    """The day plan as blocks of at most an hour (sleep stays whole), with places."""
    blocks = []
    for line in lines_of(inputs["day_plan"]):
        match = re.match(r"(\d\d:\d\d) \((\d+) min\): (.+)", line.strip())
        if not match:
            continue
        start, duration, description = minutes_of(match[1]), int(match[2]), match[3]
        sector, arena = place_for(description, inputs)
        if any(word in description.lower() for word in _SLEEP) or duration <= 60:
            blocks.append((description, start, duration, sector, arena))
            continue
        for offset in range(0, duration, 60):
            length = min(60, duration - offset)
            label = description
            if offset and "relaxing at home" in description:  # after the morning routine
                label = "reading and relaxing at home"
            blocks.append((label, start + offset, length, sector, arena))
    return blocks


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


def importance_many(inputs: Inputs, rng: random.Random) -> list[int]:
    memories = [re.sub(r"^\d+\.\s*", "", line) for line in lines_of(inputs["memories"])]
    return [importance_offline({"memory": m}, rng).importance for m in memories if m.strip()]


def summary_text(inputs: Inputs) -> str:
    fields = dict(
        line.split(": ", 1) for line in str(inputs["agent_identity"]).splitlines() if ": " in line
    )
    name = fields.get("Name", str(inputs["agent_name"]))
    parts = [f"{name} is {fields['Age']} years old." if "Age" in fields else ""]
    if "Innate traits" in fields:
        parts.append(f"{name} is {fields['Innate traits']}.")
    parts += [fields.get("Learned traits", ""), fields.get("Currently", "")]
    return " ".join(part for part in parts if part)


def react(inputs: Inputs, rng: random.Random) -> str:
    mine, theirs = str(inputs["action"]).lower(), str(inputs["observed_action"]).lower()
    if any(w in mine or w in theirs for w in ("sleep", "chatting", "conversation")):
        return "continue"
    knows = str(inputs["observed_name"]) in str(inputs["context"])
    return "talk" if rng.random() < (0.35 if knows else 0.05) else "continue"


_PRONOUNS = [
    (r"\b[Yy]ou (have|had|were|like|love|want|think|know|feel|often|sometimes|need)\b", r"I \1"),
    (r"\bYou are\b", "I am"),
    (r"\byou are\b", "I am"),
    (r"\bYou've\b", "I've"),
    (r"\bYou\b", "I"),
    (r"\byour\b", "my"),
    (r"\bYour\b", "My"),
    (r"\byou\b", "me"),
]


def first_person(statement: str, speaker: str) -> str:
    text = statement.replace(f"{speaker} is", "I am").replace(speaker, "I")
    for pattern, replacement in _PRONOUNS:
        text = re.sub(pattern, replacement, text)
    return text.strip().rstrip(".")


def converse_line(inputs: Inputs, rng: random.Random) -> tuple[str, bool]:
    speaker, listener = str(inputs["speaker"]), str(inputs["listener"])
    dialogue = [line for line in lines_of(inputs["dialogue"]) if ": " in line]
    said = [line.split(": ", 1)[1] for line in dialogue if line.startswith(f"{speaker}: ")]
    heard = " ".join(dialogue)
    first = listener.split()[0]
    if not dialogue:
        return f"Hi {first}, good to see you! How are you?", False
    memories = [re.sub(r"^\d+\.\s*", "", m) for m in lines_of(inputs["memories"])]
    for memory in memories:  # an invitation the speaker means to give this listener
        if "invite" in memory.lower() and first in memory and "invited" not in heard:
            party = next((m for m in memories if "party" in m.lower() and m != memory), "")
            detail = f" {first_person(party, speaker)}." if party else ""
            return f"By the way, {first}, you are invited to my party!{detail}", False
    for memory in memories:
        if "had a conversation" in memory or " said: " in memory or len(memory) > 300:
            continue  # pass on what one knows, not hearsay of hearsay
        news = first_person(memory, speaker)
        if news and news not in heard and len(news) > 10:
            opener = "Oh, and " if said else "I'm well, thanks! By the way, "
            return f"{opener}{news}.", len(said) >= 2
    return f"It was nice talking to you, {first}. See you around!", True


def interview_answer(inputs: Inputs) -> str:
    """An answer in the first person from the two most relevant memories retrieved."""
    name = str(inputs["agent_name"])
    memories = [re.sub(r"^\d+\.\s*", "", m).strip() for m in lines_of(inputs["memories"])]
    facts: list[str] = []
    for memory in memories:
        fact = first_person(memory, name)
        if len(fact) > 10 and fact not in facts:
            facts.append(fact)
        if len(facts) == 2:
            break
    if not facts:
        return "I'm not sure; I don't remember anything about that."
    return " ".join(f"{fact[0].upper()}{fact[1:]}." for fact in facts)


def conversation_summary(inputs: Inputs) -> str:
    lines = [line for line in lines_of(inputs["dialogue"]) if ": " in line]
    news = [line for line in lines if "By the way" in line or "Oh, and" in line]
    about = "; ".join(line.replace(": ", ' said: "', 1) + '"' for line in news[:3])
    return f"{inputs['participants']} had a conversation. {about}".strip()


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
