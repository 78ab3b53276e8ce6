"""Generated residents: what each one's day is (wake, bed, work hours, workplace, where it
eats and shops), and its identity fields saying so in one of many phrasings."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from bench.generality import words
from bench.generality.clock import said
from bench.generality.towns import Place

DAY = 24 * 60


@dataclass
class Person:
    """A resident and the truth its words state: minutes after midnight; `work_end` may be
    below `work_start` (a night shift)."""

    name: str
    home: Place
    work: Place
    wake: int
    bed: int
    work_start: int
    work_end: int
    eats: Place
    shops: Place
    named_by: str  # how the identity names the workplace: "place", "room" or "occupation"
    fields: dict[str, Any] = field(default_factory=dict)

    @property
    def first(self) -> str:
        return self.name.split(" ", 1)[0]

    def working_at(self, minutes: int) -> bool:
        """Within the stated work hours."""
        start, end = self.work_start, self.work_end
        minutes %= DAY
        return start <= minutes < end if start < end else minutes >= start or minutes < end


def hours_drawn(rng: random.Random, nights: bool) -> tuple[int, int, int, int]:
    """(wake, bed, work start, work end): a night shift for some of the trades that keep
    night hours, else a day's hours from early (a baker's 5 am) to late (2 pm to 10 pm)."""
    if nights and rng.random() < 0.5:
        start = rng.choice((21, 22, 23)) * 60
        end = (start + rng.choice((7, 8)) * 60) % DAY
        bed = end + rng.choice((60, 90))
        return bed + rng.choice((420, 450, 480)), bed, start, end
    start = rng.choice((5 * 60, 6 * 60, 7 * 60, 7 * 60 + 30, 8 * 60, 9 * 60, 10 * 60, 14 * 60))
    length = rng.choice((4, 5, 6, 8, 8, 9)) * 60 if start < 14 * 60 else 8 * 60
    wake = start - rng.choice((45, 60, 90, 120))
    bed = (wake - rng.choice((450, 480, 510, 540))) % DAY
    return wake, bed, start, start + length


WAKE = (
    "{first} is up at {t}.",
    "{first} gets up at {t}.",
    "{first}'s alarm goes off at {t}.",
    "{first} wakes at {t} every day.",
    "{first} is usually awake by {t}.",
    "Mornings start at {t} for {first}.",
    "{first} is out of bed at {t} sharp.",
    "{first} gets out of bed around {t}.",
)
EARLY_WAKE = ("{first} rises before dawn at {t}.", "{first} is up well before the sun, at {t}.")
LATE_WAKE = ("{first} sleeps in and gets up at {t}.", "{first} is not up before {t}.")
DAY_WAKE = (
    "{first} sleeps through the morning and gets up at {t}.",
    "{first} rises at {t}, after a day's sleep.",
)
BED = (
    "{first} goes to bed at {t}.",
    "{first} turns in around {t}.",
    "{first} is asleep by {t}.",
    "Lights out at {t} for {first}.",
    "{first} heads to bed at {t}.",
    "{first} sleeps from {t}.",
)
WORK = (
    "{first} works at {place} from {a} to {b}.",
    "{first} keeps {place} from {a} till {b}.",
    "{first}'s shift at {place} runs {a} to {b}.",
    "{first} is on duty at {place} from {a} until {b}.",
    "{first} opens {place} at {a} and closes it at {b}.",
    "From {a} to {b} {first} is at {place}.",
    "{first} works {a}-{b} at {place}.",
)
NIGHT_WORK = (
    "{first} works nights at {place}, {a} to {b}.",
    "{first} does the night shift at {place} from {a} to {b}.",
    "Nights, {a} to {b}, {first} is at {place}.",
)
HOURS_ONLY = (
    "{first} works from {a} to {b}.",
    "{first}'s hours are {a} to {b}.",
    "{first} keeps the place open from {a} till {b}.",
    "{first} is on duty from {a} until {b}.",
    "{first} starts work at {a} and finishes at {b}.",
)
NIGHT_HOURS_ONLY = (
    "{first} works nights, {a} to {b}.",
    "{first} is on the night shift, {a} to {b}.",
)
OCCUPATION = (
    "{first} is {town}'s {worker}.",
    "{first} works as the {worker}.",
    "{first} has been the {worker} here for years.",
    "{first} is the only {worker} in {town}.",
)
EATS = (
    "{first} has lunch at {eat} most days.",
    "{first} likes a bowl of soup at {eat}.",
    "{first} often eats at {eat} with friends.",
    "{first} meets a friend for a meal at {eat}.",
)
SHOPS = (
    "{first} buys groceries at {shop}.",
    "{first} picks up supplies at {shop} now and then.",
    "{first} shops at {shop} on the way home.",
)


def _article(worker: str) -> str:
    return f"an {worker}" if worker[0] in "aeiou" else f"a {worker}"


def identity_written(person: Person, *, world: str, rng: random.Random, age: int) -> None:
    """Fill `person.fields` (a base resident's identity fields) in phrasings drawn by `rng`:
    the workplace named by place, by one of its rooms, or only by occupation; places to
    eat and shop named around the work sentence, sometimes before it."""
    first, work = person.first, person.work
    worker = work.trade.worker if work.trade else work.kind
    night = person.work_end < person.work_start
    bare = not night  # "up at 5": the sense says which 5
    wake_t, bed_t = (
        said(person.wake, rng, bare=bare and person.wake < 12 * 60),
        said(person.bed, rng),
    )
    if person.wake >= 12 * 60:
        wake_line = rng.choice(DAY_WAKE)
    elif person.wake < 6 * 60:
        wake_line = rng.choice(WAKE + EARLY_WAKE)
    elif person.wake >= 9 * 60:
        wake_line = rng.choice(WAKE + LATE_WAKE)
    else:
        wake_line = rng.choice(WAKE)
    sleep = [wake_line.format(first=first, t=wake_t), rng.choice(BED).format(first=first, t=bed_t)]
    rng.shuffle(sleep)
    if person.named_by == "place":
        place = work.sector
    elif person.named_by == "room":
        place = f"the {work.arenas[0][0]} of {work.sector}"
    else:
        place = ""
    a, b = said(person.work_start, rng), said(person.work_end, rng)
    shifts = (NIGHT_WORK, WORK) if place else (NIGHT_HOURS_ONLY, HOURS_ONLY)
    lines = shifts[0] if night else shifts[1]
    hours = rng.choice(lines).format(first=first, place=place, a=a, b=b)
    errands = [
        rng.choice(EATS).format(first=first, eat=person.eats.sector),
        rng.choice(SHOPS).format(first=first, shop=person.shops.sector),
    ]
    requirement = [*errands[: rng.randint(0, 2)], hours]
    if len(requirement) < 3:
        requirement.append(errands[len(requirement) - 1])
    occupation = rng.choice(OCCUPATION).format(first=first, town=world, worker=worker)
    learned = (
        occupation
        if person.named_by == "occupation"
        else (
            f"{first} is {_article(worker)} at {work.sector}." if rng.random() < 0.5 else occupation
        )
    )
    person.fields = {
        "name": person.name,
        "age": age,
        "innate": ", ".join(rng.sample(words.TRAITS, 3)),
        "learned": f"{learned} {first} lives at {person.home.sector}.",
        "currently": f"{first} is {rng.choice(words.PASTIMES)}.",
        "lifestyle": " ".join(sleep),
        "daily_plan_requirement": " ".join(requirement),
        "living_area": person.home.address(world),
        "start": {"address": person.home.address(world)},
        "seed_memories": [f"{person.name} lives at {person.home.sector}"],
    }
