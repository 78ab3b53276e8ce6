"""The generality bench (bench/generality/): the generator makes valid, varied worlds,
deterministic for a seed, and the measures count what a record says. It checks the
measuring stick, not the stand-in: no figure here is a goal the stand-in must meet."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User

from agents.bases.services import base_create, base_document
from bench.generality.clock import phrasings
from bench.generality.measure import COMMUTE, figures, on_shift
from bench.generality.news import EVENT_KINDS, INTENTIONS, NEWS_QUESTIONS, PLAN_QUESTIONS
from bench.generality.record import Record, record_read
from bench.generality.routines import routines_read
from bench.generality.run import world_live
from bench.generality.world import World, world_make
from world.models import Base, Location, LocationKind
from world.townbuild import town_create

SEEDS = range(8)


def fingerprint(world: World) -> str:
    return json.dumps({"town": world.town, "base": world.base()}, sort_keys=True)


def test_a_seed_makes_one_world_and_another_seed_another() -> None:
    assert fingerprint(world_make(11)) == fingerprint(world_make(11))
    prints = {fingerprint(world_make(seed)) for seed in SEEDS}
    assert len(prints) == len(SEEDS)


def test_the_lists_offer_fifty_kinds_of_news_and_thirty_phrasings_per_question_kind() -> None:
    kinds = {kind.kind for kind in EVENT_KINDS}
    assert len(kinds) == len(EVENT_KINDS) >= 50
    assert len(set(NEWS_QUESTIONS)) >= 30
    assert len(set(PLAN_QUESTIONS)) >= 30
    for kind in EVENT_KINDS:  # every statement names the news by its made-up name
        assert "{key}" in kind.name and re.search(r"\{(key|[Nn]ame)\}", kind.statement), kind


def test_worlds_differ_in_towns_people_phrasings_and_news() -> None:
    worlds = [world_make(seed) for seed in range(20)]
    sectors = {p.sector for w in worlds for p in w.places}
    lifestyles = [p.fields["lifestyle"] for w in worlds for p in w.people]
    wakes = {p.wake for w in worlds for p in w.people}
    shifts = [p for w in worlds for p in w.people if p.work_end < p.work_start]
    named = {p.named_by for w in worlds for p in w.people}
    kinds = {item.kind.kind for w in worlds for item in w.news}
    questions = {q.text for w in worlds for q in w.news_questions + w.plan_questions}
    assert len(sectors) > 200 and len(set(lifestyles)) == len(lifestyles)
    assert len(wakes) >= 8 and shifts  # early, late and night hours
    assert named == {"place", "room", "occupation"}
    assert len(kinds) >= 30
    assert len(questions) > 300
    assert len({w.world for w in worlds}) == len(worlds)


def test_a_time_is_said_many_ways_and_each_names_it() -> None:
    said = phrasings(5 * 60 + 30, bare=True)
    assert {"5:30 am", "05:30", "half past five in the morning", "half past five"} <= set(said)
    assert "noon" in phrasings(12 * 60) and "10 pm" in phrasings(22 * 60)


@pytest.mark.django_db
def test_generated_towns_and_bases_pass_a_users_checks(user: User) -> None:
    for seed in SEEDS:
        world = world_make(seed)
        town = town_create(owner=user, data=world.town)
        assert town.world_name == world.world
        base = base_create(owner=user, data=world.base())
        assert base.town == world.name


# A record whose figures are known: three residents, a day at a minute a step.
def small_world() -> World:
    world = world_make(5, residents=3)
    assert len(world.people) == 3
    return world


def sectors_of(world: World) -> tuple[int, dict[int, str], dict[str, tuple[int, int]]]:
    """The town's width, tile index -> sector, and one tile of each sector."""
    rows, legend = world.town["rows"], world.town["legend"]
    width = len(rows[0])
    sectors: dict[int, str] = {}
    some: dict[str, tuple[int, int]] = {}
    for y, row in enumerate(rows):
        for x, char in enumerate(row):
            sector = legend[char].get("sector")
            if sector:
                sectors[y * width + x] = sector
                some.setdefault(sector, (x, y))
    return width, sectors, some


def record_of(world: World) -> Record:
    width, sectors, _ = sectors_of(world)
    return Record(world.start, 60, 24 * 60 - 1, width, sectors)


def test_wake_is_the_first_waking_action_after_sleep_within_half_an_hour() -> None:
    world = small_world()
    record = record_of(world)
    on_time, late, sleepless = world.people
    record.acting[on_time.name] = [(0, "sleeping", "x"), (on_time.wake + 20, "brewing tea", "x")]
    record.acting[late.name] = [
        (0, "resting in bed", "W:h:bedroom:bed"),
        (late.wake + 90, "reading", "x"),
    ]
    record.acting[sleepless.name] = [(0, "reading", "x"), (sleepless.wake, "cooking", "x")]
    assert (figures(world, record).wake.hits, figures(world, record).wake.total) == (1, 3)


def test_workplace_counts_resident_steps_in_stated_hours_past_the_commute() -> None:
    world = small_world()
    record = record_of(world)
    _, _, tile_of = sectors_of(world)
    worker, idler, _ = world.people
    record.tiles[worker.name] = [(0, tile_of[worker.work.sector])]
    record.tiles[idler.name] = [(0, tile_of[idler.home.sector])]
    due = [sum(on_shift(p, m) for m in range(24 * 60)) for p in (worker, idler)]
    tally = figures(world, record).workplace
    assert (tally.hits, tally.total) == (due[0], due[0] + due[1])
    hours = (worker.work_end - worker.work_start) % (24 * 60)
    assert due[0] == hours - COMMUTE


def test_reach_counts_those_who_talked_with_an_earlier_holder() -> None:
    world = small_world()
    record = record_of(world)
    a, b, c = (p.name for p in world.people)
    news = world.news[0]
    record.memories[a] = [(50, f"I heard that {news.statement}")]
    record.memories[b] = [(100, f"{a} told me that {news.name} is on")]
    record.conversations = [(100, (a, b)), (200, (c, a)), (20, (b, c))]  # the last before a knew
    tally = figures(world, record).reach
    assert (tally.hits, tally.total) == (1, 2)


def answer(record: Record, world: World, person: int, news: int, text: str) -> None:
    question = next(
        q
        for q in world.news_questions
        if q.resident == world.people[person].name and q.about == world.news[news].key
    )
    record.answers.append((1000, question.resident, question.text, text))


def test_agreement_asks_holders_to_tell_and_others_to_deny() -> None:
    world = small_world()
    record = record_of(world)
    item = world.news[0]
    holder = world.people[0].name
    record.memories[holder] = [(10, item.statement)]
    answer(record, world, 0, 0, f"Yes: {item.statement}")  # tells it: agrees
    answer(record, world, 1, 0, "No, I haven't heard anything about that.")  # agrees
    answer(record, world, 2, 0, f"It is all about {item.key} at {item.place.sector}!")  # false
    answer(record, world, 0, 1, f"I haven't heard of {world.news[1].name}.")  # agrees
    # its place named in other talk is no claim: agrees
    answer(record, world, 1, 1, f"I talked with {holder} at {world.news[1].place.sector}.")
    found = figures(world, record).agreement
    assert (found.agree.hits, found.agree.total) == (4, 5)
    assert (found.false_claims.hits, found.false_claims.total) == (1, 5)
    assert (found.holders.hits, found.holders.total) == (1, 1)


def hour_item(world: World, minute: int, address: str, minutes: int = 60) -> dict[str, Any]:
    start = world.start + timedelta(minutes=minute)
    return {
        "level": "hour",
        "description": "x",
        "start": start.isoformat(),
        "duration_minutes": minutes,
        "address": address,
    }


def test_plan_answers_name_the_place_the_plan_has_then() -> None:
    world = small_world()
    record = record_of(world)
    elsewhere = next(p for p in world.places if p.role == "public")
    for number, person in enumerate(world.people):
        asked = [q for q in world.plan_questions if q.resident == person.name]
        at_work = person.work.address(world.world)
        items = [hour_item(world, q.minute - q.minute % 60, at_work) for q in asked]
        record.plans[person.name] = [(5, "plan.made", {"items": items})]
        for question in asked:
            said = person.work.sector if number == 0 else f"at {elsewhere.sector}"
            record.answers.append((600, person.name, question.text, f"I'll be {said}."))
    found = figures(world, record)
    assert (found.plans.hits, found.plans.total, found.placeless) == (2, 6, 0)
    # a re-plan of the rest of the day before the question drops the blocks: no place then
    since = world.start.isoformat()
    for person in world.people:
        record.plans[person.name].append((9, "plan.revised", {"from": since, "rest_of_day": True}))
    assert figures(world, record).placeless == 6


def test_intentions_count_when_the_next_plan_puts_the_place_at_the_time() -> None:
    world = small_world()
    record = record_of(world)
    kept, ignored = world.intentions
    for intention in world.intentions:
        record.whispers.append((intention.at, intention.resident, intention.statement))
    there = f"{world.world}:{kept.place.sector}:{kept.place.arenas[0][0]}"
    item = hour_item(world, kept.minute - 15, there)
    record.plans[kept.resident] = [(kept.at + 1, "plan.made", {"items": [item]})]
    late = hour_item(world, ignored.minute, f"{world.world}:{ignored.place.sector}:x")
    record.plans[ignored.resident] = [(ignored.at + 120, "plan.made", {"items": [late]})]
    tally = figures(world, record).intentions
    assert (tally.hits, tally.total) == (1, 2)
    assert len(set(INTENTIONS)) >= 8


@pytest.mark.django_db(transaction=True)
def test_a_tiny_world_is_lived_interviewed_and_measured_through_the_services(user: User) -> None:
    """Ten minutes of a small world: every question asked is answered, in the log, and
    each figure's denominator counts what the world holds."""
    world = world_make(3, residents=2, events=1)
    lived = world_live(world, owner=user, hours=10 / 60, sec_per_step=60)
    assert lived.simulation.step == 10
    asked = world.plan_questions + world.news_questions
    assert [(q.resident, q.text) for q, _ in lived.answers] == [(q.resident, q.text) for q in asked]
    assert all(text.strip() for _, text in lived.answers)
    record = record_read(lived.simulation)
    assert len(record.answers) == len(asked)
    found = figures(world, record)
    assert found.wake.total == 2
    assert found.agreement.agree.total == len(world.news_questions)
    assert found.plans.total + found.placeless == len(world.plan_questions)
    assert found.intentions.total == 2 and found.intentions.hits == 0  # not yet whispered
    assert set(record.tiles) == {p.name for p in world.people}


@pytest.mark.django_db
def test_no_world_holds_a_name_of_the_ville_or_its_two_events() -> None:
    """The worlds are made up: no word of the Ville's residents' or places' names, nor
    of its party and election, appears in twenty of them."""
    ville = Base.objects.get(name="base_the_ville_n25")
    names = {w for r in base_document(base=ville)["residents"] for w in r["name"].split()}
    sectors = Location.objects.filter(town__name="the_ville", kind=LocationKind.SECTOR)
    places = {a.split(":")[1] for a in sectors.values_list("address", flat=True)}
    assert len(names) > 40 and len(places) > 15
    banned = {*names, *places, "Valentine", "party", "election", "mayor"}
    for seed in range(20):
        text = fingerprint(world_make(seed))
        for word in banned:
            assert not re.search(rf"\b{re.escape(word)}\b", text, re.IGNORECASE), (seed, word)


@pytest.mark.django_db
def test_the_routines_measure_counts_every_resident_once_per_figure() -> None:
    """`--routines`: each figure over every resident of the worlds (the workplace also by
    how the identity names it), shares of what the stand-in read right."""
    found = routines_read(range(3))
    residents = sum(len(world_make(seed).people) for seed in range(3))
    for figure in ("wake", "work_start", "work_end", "workplace"):
        tally = found[figure]
        assert tally["denominator"] == residents
        assert 0 <= tally["numerator"] <= residents
        assert tally["share"] == round(tally["numerator"] / residents, 4)
    by_naming = [v for k, v in found.items() if k.startswith("workplace named by")]
    assert sum(v["denominator"] for v in by_naming) == residents
    assert sum(v["numerator"] for v in by_naming) == found["workplace"]["numerator"]
