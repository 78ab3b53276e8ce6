"""The generality figures of lived worlds, judged from the record (the log, the plan
events, memories, the interviews' text) against the world's truth (the generated hours,
places and names). The few words here judge answers in the bench; none is the
application's."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from bench.generality.people import DAY, Person
from bench.generality.record import Record
from bench.generality.world import Intention, News, World

WAKE_TOLERANCE = 30  # minutes either side of the stated wake time
COMMUTE = 30  # minutes after a shift's stated start not counted: the walk there
INTENTION_TOLERANCE = 30  # minutes around the intended time that a plan item may cover
REPLAN_WINDOW = 60  # sim minutes after a whisper in which its re-plan is made
MIN_SLEEP = 180  # minutes asleep before a waking action that counts as waking up
# An action is sleep, or on the way to it ("going to bed", "waiting to use the bed"),
# when it says so.
SLEEP = re.compile(r"\b(a?sleep\w*|nap\w*|bed)\b", re.IGNORECASE)
# An answer that says it does not know.
DENIAL = re.compile(
    r"\b(ha(ve|s)n'?t|have not|has not|never|not) (heard|been told|aware)|"
    r"\b(don'?t|do not) know\b|\bno idea\b|\bnot sure\b|\bnothing about\b",
    re.IGNORECASE,
)


@dataclass
class Tally:
    """A figure's numerator over its denominator."""

    hits: int = 0
    total: int = 0

    def add(self, hit: bool) -> None:
        self.hits += int(hit)
        self.total += 1

    def merge(self, other: Tally) -> None:
        self.hits += other.hits
        self.total += other.total

    def report(self, goal: str) -> dict[str, Any]:
        share = round(self.hits / self.total, 4) if self.total else None
        return {"numerator": self.hits, "denominator": self.total, "share": share, "goal": goal}


def asleep(action: str) -> bool:
    return bool(SLEEP.search(action))


def apart(a: int, b: int) -> int:
    """Minutes between two times of day, around midnight."""
    gap = abs(a - b) % DAY
    return min(gap, DAY - gap)


def clock(world: World, record: Record, step: int) -> int:
    """Minutes after midnight of the start's day at `step`."""
    return record.minute(step) + world.start.hour * 60 + world.start.minute


def woke_at(record: Record, name: str) -> int | None:
    """The step of the first waking action after MIN_SLEEP minutes asleep, or None."""
    fell: int | None = None  # the step the sleep going on began
    for step, action, _ in sorted(record.acting.get(name, []), key=lambda a: a[0]):
        if asleep(action):
            fell = step if fell is None else fell
        elif fell is not None:
            if record.minute(step) - record.minute(fell) >= MIN_SLEEP:
                return step
            fell = None
    return None


def wake_adherence(world: World, record: Record) -> Tally:
    """Residents whose first waking action after a night's (or a day's) sleep is within
    WAKE_TOLERANCE of their stated wake time."""
    tally = Tally()
    for person in world.people:
        woke = woke_at(record, person.name)
        tally.add(
            woke is not None and apart(clock(world, record, woke), person.wake) <= WAKE_TOLERANCE
        )
    return tally


def _tile_at(record: Record, name: str) -> list[tuple[int, int, int]]:
    """(from step, to step, tile index) spans of the resident's place."""
    moves = record.tiles.get(name, [])
    if not moves:
        return []
    spans = []
    for (step, (x, y)), nxt in zip(moves, [*moves[1:], (record.end_step + 1, (0, 0))], strict=True):
        spans.append((step, nxt[0], y * record.width + x))
    return spans


def on_shift(person: Person, minute: int) -> bool:
    """Within the stated hours, past the first COMMUTE minutes."""
    return person.working_at(minute) and person.working_at(minute - COMMUTE)


def workplace_adherence(world: World, record: Record) -> Tally:
    """Resident-steps within stated work hours spent in the workplace's sector."""
    tally = Tally()
    for person in world.people:
        for first, last, tile in _tile_at(record, person.name):
            for step in range(first, min(last, record.end_step + 1)):
                if on_shift(person, clock(world, record, step)):
                    tally.add(record.sectors.get(tile, "") == person.work.sector)
    return tally


def first_held(record: Record, key: str) -> dict[str, int]:
    """The step each resident first remembers a statement holding `key`."""
    held: dict[str, int] = {}
    needle = key.lower()
    for name, memories in record.memories.items():
        for step, text in memories:
            if needle in text.lower():
                held[name] = min(held.get(name, step), step)
    return held


def news_reach(world: World, record: Record) -> Tally:
    """Of residents who talked with someone who remembered the news before they did,
    those who remember it by the end."""
    tally = Tally()
    names = {p.name for p in world.people}
    for item in world.news:
        held = first_held(record, item.key)
        reached: set[str] = set()
        for step, participants in sorted(record.conversations):
            holders = [p for p in participants if held.get(p, 10**9) < step]
            for name in participants:
                others = [h for h in holders if h != name]
                if name in names and others and held.get(name, 10**9) >= step:
                    reached.add(name)
        for name in sorted(reached):
            tally.add(name in held)
    return tally


def claims(answer: str, question: str, item: News) -> bool:
    """The answer tells the news: a sentence of it holds the news's key and, when the
    question named the key, another of its details; or two details besides the key (the
    place and the person alone are named in other talk too). And it does not deny."""
    asked = question.lower()
    key, others = item.key.lower(), [d.lower() for d in item.details()[1:]]
    for sentence in re.split(r"(?<=[.!?])\s+", answer.lower()):
        told = [d for d in others if d in sentence and d not in asked]
        if (key in sentence and (key not in asked or told)) or len(told) >= 2:
            return not DENIAL.search(answer)
    return False


@dataclass
class Agreement:
    agree: Tally
    false_claims: Tally
    holders: Tally  # holders' answers that tell it
    others: Tally  # the answers of those who do not hold it that deny it


def interview_agreement(world: World, record: Record) -> Agreement:
    """News answers that agree with memory: a holder tells of it, anyone else does not."""
    result = Agreement(Tally(), Tally(), Tally(), Tally())
    news = {item.key: item for item in world.news}
    asked = {(q.resident, q.text): q for q in world.news_questions}
    for step, name, text, answer in record.answers:
        question = asked.get((name, text))
        if question is None:
            continue
        item = news[question.about]
        holds = first_held(record, item.key).get(name, 10**9) <= step
        told = claims(answer, text, item)
        result.agree.add(told == holds)
        result.false_claims.add(told and not holds)
        (result.holders if holds else result.others).add(told == holds)
    return result


def _when(world: World, minute: int) -> datetime:
    return world.start + timedelta(minutes=minute)


LEVELS = ("hour", "action", "day")  # whose place answers "where at T", most wanted first


def plan_place_at(record: Record, name: str, *, until_step: int, at: datetime) -> str:
    """The address of the plan item covering `at` in the resident's plan as it stood at
    `until_step` (plans replayed from the log, a re-plan of the rest of the day dropping
    what it replaces): its hour block's, else an action's, else the day's; or ""."""
    items: list[tuple[str, datetime, datetime, str]] = []
    for step, kind, payload in record.plans.get(name, []):
        if step > until_step:
            break
        if kind == "plan.revised":
            if payload.get("rest_of_day"):
                since = datetime.fromisoformat(payload["from"])
                items = [
                    i
                    for i in items
                    if i[0] == "day" or not since <= i[1] < since + timedelta(days=1)
                ]
            continue
        for item in payload["items"]:
            start = datetime.fromisoformat(item["start"])
            end = start + timedelta(minutes=int(item["duration_minutes"]))
            items.append((item["level"], start, end, item.get("address", "")))
    for level in LEVELS:
        covering = [i for i in items if i[0] == level and i[1] <= at < i[2] and i[3]]
        if covering:
            return covering[-1][3]
    return ""


def names_of(world: World, person: Person, address: str) -> list[str]:
    """How an answer may name the place at `address`: its sector, an arena no other sector
    has, and "home" for the resident's own."""
    parts = address.split(":")
    if len(parts) < 2:
        return []
    sector = world.place(parts[1])
    if sector is None:
        return []
    names = [sector.sector]
    arenas = [a for p in world.places for a, _ in p.arenas]
    names += [a for a, _ in sector.arenas if arenas.count(a) == 1]
    if sector is person.home:
        names.append("home")
    return names


def plan_answers(world: World, record: Record) -> tuple[Tally, int]:
    """Plan questions answered with a name of the place the plan has then; and how many
    asked of a time the plan had no place for (not counted)."""
    tally, placeless = Tally(), 0
    people = {p.name: p for p in world.people}
    asked = {(q.resident, q.text): q for q in world.plan_questions}
    for step, name, text, answer in record.answers:
        question = asked.get((name, text))
        if question is None:
            continue
        address = plan_place_at(record, name, until_step=step, at=_when(world, question.minute))
        names = names_of(world, people[name], address)
        if not names:
            placeless += 1
            continue
        tally.add(any(re.search(rf"\b{re.escape(n)}\b", answer, re.IGNORECASE) for n in names))
    return tally, placeless


def intention_planned(world: World, record: Record, intention: Intention) -> bool:
    """A plan item at the intended place covering the intended time (give or take
    INTENTION_TOLERANCE), among the plans made within REPLAN_WINDOW of the whisper."""
    whispered = [
        s
        for s, n, text in record.whispers
        if n == intention.resident and text == intention.statement
    ]
    if not whispered:
        return False
    since = whispered[0]
    until = since + REPLAN_WINDOW * 60 // record.sec_per_step
    wanted = _when(world, intention.minute)
    low, high = (
        wanted - timedelta(minutes=INTENTION_TOLERANCE),
        wanted + timedelta(minutes=INTENTION_TOLERANCE),
    )
    for step, kind, payload in record.plans.get(intention.resident, []):
        if kind != "plan.made" or not since <= step <= until:
            continue
        for item in payload["items"]:
            parts = item.get("address", "").split(":")
            start = datetime.fromisoformat(item["start"])
            end = start + timedelta(minutes=int(item["duration_minutes"]))
            if (
                len(parts) > 1
                and parts[1].lower() == intention.place.sector.lower()
                and start < high
                and end > low
            ):
                return True
    return False


def intentions_planned(world: World, record: Record) -> Tally:
    tally = Tally()
    for intention in world.intentions:
        tally.add(intention_planned(world, record, intention))
    return tally


@dataclass
class Figures:
    wake: Tally
    workplace: Tally
    reach: Tally
    agreement: Agreement
    plans: Tally
    placeless: int
    intentions: Tally

    def merge(self, other: Figures) -> None:
        for name in ("wake", "workplace", "reach", "plans", "intentions"):
            getattr(self, name).merge(getattr(other, name))
        for name in ("agree", "false_claims", "holders", "others"):
            getattr(self.agreement, name).merge(getattr(other.agreement, name))
        self.placeless += other.placeless

    def report(self) -> dict[str, Any]:
        return {
            "wake_time_adherence": self.wake.report(f">= 95% within {WAKE_TOLERANCE} min"),
            "workplace_adherence": self.workplace.report(
                ">= 90% of resident-steps in stated hours"
            ),
            "news_reach": self.reach.report(">= 60% of those who talked with a holder"),
            "interview_agreement": {
                **self.agreement.agree.report(">= 95%"),
                "false_claims": self.agreement.false_claims.report("<= 2% of news answers"),
                "holders_telling": self.agreement.holders.report("-"),
                "others_denying": self.agreement.others.report("-"),
            },
            "plan_answers": {
                **self.plans.report(">= 90%"),
                "times_without_a_place": self.placeless,
            },
            "intentions_planned": self.intentions.report(">= 90% in the next plan"),
        }


def figures(world: World, record: Record) -> Figures:
    plans, placeless = plan_answers(world, record)
    return Figures(
        wake_adherence(world, record),
        workplace_adherence(world, record),
        news_reach(world, record),
        interview_agreement(world, record),
        plans,
        placeless,
        intentions_planned(world, record),
    )


def empty() -> Figures:
    return Figures(
        Tally(),
        Tally(),
        Tally(),
        Agreement(Tally(), Tally(), Tally(), Tally()),
        Tally(),
        0,
        Tally(),
    )
