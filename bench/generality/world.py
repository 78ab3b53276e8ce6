"""A generated world: a town, residents, news, whispered intentions and the interview's
questions, all drawn from the bench's lists by one seed, with the truth each is judged by."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from bench.generality import words
from bench.generality.clock import said
from bench.generality.news import (
    EVENT_KINDS,
    INTENTIONS,
    NEWS_QUESTIONS,
    PLAN_QUESTIONS,
    PURPOSES,
    WHEN,
    EventKind,
)
from bench.generality.people import Person, hours_drawn, identity_written
from bench.generality.towns import Place, places_drawn, proper_name, town_file


@dataclass(frozen=True)
class News:
    """An event of the world: its made-up `key` (in its name and nowhere else in the
    world), the statement announcing it, and the words that would tell it in an answer."""

    kind: EventKind
    key: str
    name: str
    place: Place
    person: str
    statement: str
    told: tuple[
        tuple[str, str, int], ...
    ]  # ("whisper", resident, minute) / ("announce", sector, minute)

    def details(self) -> tuple[str, ...]:
        """What a resident who knows the news may say of it: its key, its kind's words,
        its place and the person in it."""
        return (self.key, self.kind.kind, self.place.sector, self.person)


@dataclass(frozen=True)
class Intention:
    """A whispered intention: the resident means to be at `place` at `minute` today."""

    resident: str
    place: Place
    minute: int
    statement: str
    at: int  # the minute it is whispered


@dataclass(frozen=True)
class Question:
    resident: str
    text: str
    about: str  # a News key, or "plan"
    minute: int = 0  # for "plan": the time asked about


@dataclass
class World:
    seed: int
    name: str
    world: str
    start: datetime
    places: list[Place]
    people: list[Person]
    news: list[News]
    intentions: list[Intention]
    plan_questions: list[Question]  # asked at `ask_plans_at`
    news_questions: list[Question]  # asked at the end of the run
    ask_plans_at: int
    town: dict[str, Any]

    def place(self, sector: str) -> Place | None:
        return next((p for p in self.places if p.sector.lower() == sector.lower()), None)

    def at(self, minute: int) -> datetime:
        return self.start + timedelta(minutes=minute)

    def base(self, *, owner_tag: str = "") -> dict[str, Any]:
        """The world's residents and scenarios as a base file (`smallville-base/1`)."""
        scenarios: list[dict[str, Any]] = []
        for item in self.news:
            for how, target, minute in item.told:
                at = self.at(minute).isoformat()
                if how == "whisper":
                    scenarios.append(
                        {
                            "kind": "whisper",
                            "at": at,
                            "resident": target,
                            "statement": item.statement,
                        }
                    )
                else:
                    place = f"{self.world}:{target}"
                    scenarios.append(
                        {"kind": "announce", "at": at, "place": place, "statement": item.statement}
                    )
        for intention in self.intentions:
            at = self.at(intention.at).isoformat()
            scenarios.append(
                {
                    "kind": "whisper",
                    "at": at,
                    "resident": intention.resident,
                    "statement": intention.statement,
                }
            )
        scenarios.sort(key=lambda s: s["at"])
        return {
            "format": "smallville-base/1",
            "name": f"generality {self.name}{owner_tag}",
            "town": self.name,
            "start_time": self.start.isoformat(),
            "sec_per_step": 60,
            "residents": [p.fields for p in self.people],
            "scenarios": scenarios,
        }


def world_make(seed: int, *, residents: int | None = None, events: int = 3) -> World:
    """The world of `seed`: 5-7 residents (or `residents`) in homes of one or two, each
    with a trade of its own workplace (some share one), `events` news of distinct kinds,
    two intentions, and the questions."""
    rng = random.Random(f"generality-{seed}")
    taken: set[str] = set()
    count = residents or rng.randint(5, 7)
    trades = rng.sample(words.TRADES, max(2, count - rng.randint(0, 2)))
    homes = (count + 1) // 2 + rng.randint(0, 1)
    places = places_drawn(rng, homes=homes, trades=trades, taken=taken)
    world = proper_name(rng, taken) + rng.choice(("", " Bay", " Cross", " on Sea", " Hythe"))
    name = f"gen_{seed}_{world.split()[0].lower()}"
    start = datetime(2025, 3, 3, tzinfo=UTC) + timedelta(days=rng.randrange(300))
    people = _people(rng, count, places, world)
    beds: dict[str, int] = {}
    for person in people:
        beds[person.home.sector] = beds.get(person.home.sector, 0) + 1
    town = town_file(name=name, world=world, places=places, rng=rng, extra_beds=beds)
    _relationships(rng, people)
    news = _news(rng, events, places, people, taken)
    intentions = _intentions(rng, people, places)
    ask_plans_at = 10 * 60
    plan_questions = []
    for person in people:
        for minute in sorted(rng.sample(range(12 * 60, 22 * 60, 30), 2)):
            text = rng.choice(PLAN_QUESTIONS).format(t=said(minute, rng))
            plan_questions.append(Question(person.name, text, "plan", minute))
    news_questions = []
    for item in news:
        for person in people:
            template = rng.choice(NEWS_QUESTIONS)
            text = template.format(name=item.name, place=item.place.sector)
            news_questions.append(Question(person.name, text, item.key))
    return World(
        seed, name, world, start, places, people, news, intentions, plan_questions,
        news_questions, ask_plans_at, town,
    )  # fmt: skip


def _people(rng: random.Random, count: int, places: list[Place], world: str) -> list[Person]:
    homes = [p for p in places if p.role == "home"]
    works = [p for p in places if p.role == "work"]
    eats = [p for p in places if p.role == "eat"]
    shops = [p for p in places if p.role == "shop"]
    names = rng.sample(
        [f"{first} {last}" for first in words.FIRST_NAMES for last in words.LAST_NAMES], count
    )
    people = []
    for i, name in enumerate(names):
        work = works[i % len(works)]
        wake, bed, start, end = hours_drawn(rng, bool(work.trade and work.trade.nights))
        named_by = rng.choice(("place", "room", "occupation"))
        home = homes[i % len(homes)]
        person = Person(
            name, home, work, wake, bed, start, end, rng.choice(eats), shops[0], named_by
        )
        identity_written(person, world=world, rng=rng, age=rng.randint(19, 74))
        people.append(person)
    return people


def _relationships(rng: random.Random, people: list[Person]) -> None:
    for person in people:
        others = [p for p in people if p is not person]
        relations = []
        for other in rng.sample(others, min(2, len(others))):
            relation = rng.choice(words.RELATIONS)
            relations.append(
                {"with": other.name, "memory": f"{other.name} is {person.name}'s {relation}"}
            )
        person.fields["relationships"] = relations


def _news(
    rng: random.Random, count: int, places: list[Place], people: list[Person], taken: set[str]
) -> list[News]:
    public = [p for p in places if p.role != "home"]
    sites = rng.sample(public, min(count, len(public)))
    made: list[News] = []
    for kind, place in zip(rng.sample(EVENT_KINDS, count), sites, strict=False):
        key = proper_name(rng, taken)
        name = kind.name.format(key=key)
        person = (
            rng.choice(people).name
            if rng.random() < 0.5
            else f"{rng.choice(words.FIRST_NAMES)} {proper_name(rng, taken)}"
        )
        statement = kind.statement.format(
            key=key,
            name=name,
            Name=name[0].upper() + name[1:],
            place=place.sector,
            when=rng.choice(WHEN),
            person=person,
        )
        first = people[(len(made) + rng.randrange(len(people))) % len(people)]
        told: list[tuple[str, str, int]] = [("whisper", first.name, rng.choice((7, 8, 9)) * 60)]
        workers = [p for p in people if p.work_start < p.work_end]
        if workers and rng.random() < 0.5:
            at = rng.choice(workers)
            told.append(("announce", at.work.sector, (at.work_start + at.work_end) // 2))
        made.append(News(kind, key, name, place, person, statement, tuple(told)))
    return made


def _intentions(rng: random.Random, people: list[Person], places: list[Place]) -> list[Intention]:
    made = []
    for person in rng.sample(people, 2):
        where = [
            p for p in places if p is not person.home and p is not person.work and p.role != "home"
        ]
        place = rng.choice(where)
        minute = rng.choice(range(13 * 60, 20 * 60, 30))
        other = rng.choice([p for p in people if p is not person])
        purpose = rng.choice(PURPOSES).format(person=other.first)
        statement = rng.choice(INTENTIONS).format(
            place=place.sector, t=said(minute, rng), purpose=purpose
        )
        made.append(Intention(person.name, place, minute, statement, rng.choice((8, 9, 10)) * 60))
    return made
