"""Offline policies of the cognition's planning tasks: rules, not a language model.

They read the same inputs the prompts render (identity, lifestyle, the places the agent
knows, what it remembers) and make a recognisable day: sleep and wake times from the
lifestyle, a workplace from the identity and daily plan requirement, meals, evenings
out. Deterministic for a given random generator, which the port seeds per call. The
actions at objects are in `offline_actions`; conversations and interviews (which pass on
what the speaker finds most important, so news spreads) in `offline_talk`.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from agents.sleep import is_bedtime
from llm.importance import importance_offline
from llm.tasks import Inputs
from world.addresses import Address

_TIME = re.compile(r"(\d{1,2})(?::(\d{2}))?\s*(am|pm)", re.IGNORECASE)


def clip(text: str, limit: int) -> str:
    """`text` within `limit` characters: cut at the last word that fits, marked with "..."."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 3].rsplit(" ", 1)[0].rstrip(" ,;:")
    return f"{cut}..."


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


def _loose(text: str) -> str:
    return re.sub(r"s\b", "", text.lower())


_WORK_WORDS = ("work", "open", "student", "study", "owner", "teach", "professor", "shop")


def routine(inputs: Inputs) -> Routine:
    lifestyle = str(inputs["lifestyle"])
    requirement = str(inputs["daily_plan_requirement"])
    identity = f"{requirement} {inputs['summary']}"
    times = times_in(lifestyle)
    wake, bed = times.get("wake", 7 * 60), times.get("bed", 23 * 60)
    home_sector = Address.parse(str(inputs["living_area"])).sector
    sectors = [s for s in places_of(str(inputs["places"])) if s != home_sector]
    # Persona texts name places loosely ("Oak Hill college", "the Willow Market" for The
    # Willows Market): matched without case or plural s, so they are not at home all day.
    named = _loose(identity)
    workplace = ""
    for sector in sorted(sectors, key=lambda s: named.find(_loose(s)) + 1 or 10**6):
        if _loose(sector) in named:
            workplace = sector
            break
    hours = [_clock(m) for m in _TIME.finditer(requirement)]
    if len(hours) >= 2 and hours[0] < hours[-1]:
        start, end = hours[0], hours[-1]
    elif len(hours) == 1 and workplace:  # "opens the store at 8am": eight hours from then
        start, end = hours[0], hours[0] + 8 * 60
    elif "student" in identity.lower():
        start, end = 10 * 60, 16 * 60
    else:
        start, end = 9 * 60, 17 * 60
    start = max(start, wake + 60)
    end = min(end, 22 * 60) if bed < wake else min(end, bed - 90)  # bed after midnight?
    return Routine(wake, bed, times.get("dinner", 18 * 60), start, max(end, start + 60), workplace)


# Kinds of public place the routine goes to, by the words of an arena's name.
_PLACE_KINDS = {
    "pub": ("pub", "bar", "tavern"),
    "park": ("park", "green"),
    "cafe": ("cafe", "café", "restaurant", "diner", "bistro"),
}


def _sectors_with(places: dict[str, list[str]], kind: str) -> list[str]:
    """The known sectors with an arena of this kind, by name (a town's places, not names
    the code knows)."""
    words = _PLACE_KINDS[kind]
    return sorted(
        sector
        for sector, arenas in places.items()
        if any(w in re.findall(r"[\w']+", a.lower()) for a in arenas for w in words)
    )


def day_plan(inputs: Inputs, rng: random.Random) -> list[tuple[str, int, int]]:
    """(description, start, duration) items in broad strokes."""
    r = routine(inputs)
    work = f"working at {r.workplace}" if r.workplace else "working on projects at home"
    if r.workplace and "student" in str(inputs["summary"]).lower():
        work = f"studying at {r.workplace}"
    places = places_of(str(inputs["places"]))
    evenings = [
        sector for kind in ("pub", "park", "cafe") for sector in _sectors_with(places, kind)
    ]
    evening = f"relaxing at {rng.choice(evenings)}" if evenings else "relaxing at home"
    cafes = _sectors_with(places, "cafe")
    lunch = f"having lunch at {cafes[0]}" if cafes else "having lunch at home"
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
    home = Address.parse(str(inputs["living_area"]))
    home_place = (
        (home.sector, home.arena)
        if home.arena
        else next(((s, a[0]) for s, a in places.items() if a), ("", ""))
    )
    rooms = places.get(home.sector, [])
    if home.arena and rooms and home.arena not in rooms:
        # It does not know its own room (Eddy Lin's in the base Ville): a shared room of the
        # house, not the nearest-named one, someone else's bedroom whose bed it would queue for.
        shared = [a for a in rooms if "'s" not in a and not re.search(r"bath|garden", a)]
        home_place = (home.sector, shared[0]) if shared else home_place
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
        if is_bedtime(description) or duration <= 60:
            blocks.append((description, start, duration, sector, arena))
            continue
        for offset in range(0, duration, 60):
            length = min(60, duration - offset)
            label = description
            if offset and "relaxing at home" in description:  # after the morning routine
                label = "reading and relaxing at home"
            blocks.append((label, start + offset, length, sector, arena))
    return blocks


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
