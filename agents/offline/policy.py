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

from agents.offline.clock import DAY
from agents.offline.places import places_of
from agents.offline.routine import routine
from agents.sleep import is_bedtime
from llm.inputs import identity_fields
from llm.tasks import Inputs
from world.addresses import Address


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
    """(description, start, duration) items in broad strokes, keeping the hours the
    identity states: sleep from bed to wake (across midnight too), work in its hours (a
    night's work from its start to midnight and from midnight to its end), meals and an
    evening out in the hours left."""
    r = routine(inputs)
    where = f"the {r.work_arena} of {r.workplace}" if r.work_arena else r.workplace
    work = f"working at {where}" if r.workplace else "working on projects at home"
    if r.workplace and r.studies:
        work = f"studying at {where}"
    places = places_of(str(inputs["places"]))
    evenings = [
        sector for kind in ("pub", "park", "cafe") for sector in _sectors_with(places, kind)
    ]
    evening = f"relaxing at {rng.choice(evenings)}" if evenings else "relaxing at home"
    if r.leisure_place:  # where its identity says it spends free time
        evening = f"relaxing at {r.leisure_place}"
    cafes = _sectors_with(places, "cafe")
    lunch = f"having lunch at {cafes[0]}" if cafes else "having lunch at home"
    lunch_minutes, dinner_label = 60, _DINNER
    if r.workplace:  # a working day's lunch is a short break where one works
        lunch, lunch_minutes = f"having lunch at {r.workplace}", 30
    # Where its identity says it eats: at lunch when it says lunch, or when it keeps no
    # counter through the day (it studies, or works at home); else after work.
    keeps_hours = bool(r.workplace) and not r.studies
    if r.meal_place and (r.meal_time == "midday" or not keeps_hours):
        lunch = f"having lunch at {r.meal_place}"
        lunch_minutes = 30 if keeps_hours or r.meal_place == r.workplace else 60
    elif r.meal_place:
        dinner_label = f"having dinner at {r.meal_place}"
    day = [_HOME] * DAY
    if r.night_work:  # dinner before the night's work; asleep after it
        _span(day, r.work_start - 120, r.work_start - 60, dinner_label)
    else:
        dinner = max(r.dinner, r.work_end)
        _span(day, dinner + 60, r.bed, evening)
        _span(day, dinner, dinner + 60, dinner_label)
        if r.bed < r.wake:
            _span(day, 0, r.bed, "staying up at home")
    _span(day, r.wake, r.wake + 60, _MORNING)
    _span(day, r.work_start, r.work_end, work)
    if not r.night_work and r.work_start < 12 * 60 < r.work_end - 60:
        _span(day, 12 * 60, 12 * 60 + lunch_minutes, lunch)
    _span(day, r.bed, r.wake, "sleeping")
    if r.bed > r.wake:
        _span(day, r.bed, DAY, "going to bed and sleeping")
    return _items(day)


_MORNING = "waking up and having breakfast"
_HOME = "relaxing at home"
_DINNER = "having dinner at home"


def _span(day: list[str], start: int, end: int, label: str) -> None:
    """Label the minutes from start to end (across midnight when end <= start)."""
    start, end = start % DAY, (end % DAY or DAY)
    if start == end:
        return
    minutes = range(start, end) if start < end else [*range(start, DAY), *range(end)]
    for minute in minutes:
        day[minute] = label


def _items(day: list[str]) -> list[tuple[str, int, int]]:
    """Runs of minutes with one label as (description, start, duration)."""
    items: list[tuple[str, int, int]] = []
    for minute, label in enumerate(day):
        if items and items[-1][0] == label:
            items[-1] = (label, items[-1][1], items[-1][2] + 1)
        elif items and items[-1][0].startswith(_MORNING) and label == _HOME:
            items[-1] = (f"{_MORNING}, then {_HOME}", items[-1][1], items[-1][2] + 1)
        elif items and items[-1][0] == _HOME and label == _DINNER:
            # Free time before dinner is part of it: a plan in broad strokes (5 to 8 items).
            items[-1] = (f"{_HOME}, then {_DINNER}", items[-1][1], items[-1][2] + 1)
        elif items and items[-1][0] == f"{_HOME}, then {_DINNER}" and label == _DINNER:
            items[-1] = (items[-1][0], items[-1][1], items[-1][2] + 1)
        else:
            items.append((label, minute, 1))
    return items


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
    # The longest name first: "Dorm for Quillon College" is not "Quillon College".
    for sector in sorted(places, key=len, reverse=True):
        arenas = places[sector]
        if sector.lower() in lowered and arenas:
            named = [a for a in sorted(arenas, key=len, reverse=True) if a.lower() in lowered]
            if named:  # "at the library of Corvin College": that room
                return sector, named[0]
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
        before_dinner = description == f"{_HOME}, then {_DINNER}"
        for offset in range(0, duration, 60):
            length = min(60, duration - offset)
            label = description
            if before_dinner:  # free time, then dinner in the last hour
                label = _DINNER if offset + length >= duration else _HOME
            elif offset and "relaxing at home" in description:  # after the morning routine
                label = "reading and relaxing at home"
            blocks.append((label, start + offset, length, sector, arena))
    return blocks


def summary_text(inputs: Inputs) -> str:
    fields = identity_fields(str(inputs["agent_identity"]))
    name = fields.get("Name", str(inputs["agent_name"]))
    parts = [f"{name} is {fields['Age']} years old." if "Age" in fields else ""]
    if "Innate traits" in fields:
        parts.append(f"{name} is {fields['Innate traits']}.")
    parts += [fields.get("Learned traits", ""), fields.get("Currently", "")]
    return " ".join(part for part in parts if part)
