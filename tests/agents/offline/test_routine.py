"""The offline day read from the resident's own identity (agents/offline/routine.py): wake
time, working hours and workplace by meaning and by the time parser, in a town and with
residents made up here, each said in several phrasings. The day plan and its hour blocks
are what a user sees: the resident wakes near its stated time, works at its workplace
within its stated hours, and never works where it only eats or walks."""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass

import pytest

from agents.offline.policy import day_plan, hhmm, hourly_blocks
from agents.offline.routine import routine
from llm.tasks import Inputs

TOWN = "\n".join(
    [
        "Quillon College: lecture hall, library, refectory",
        "The Lantern Inn: taproom, kitchen, guest rooms",
        "Saltgate Quay: pier, fish market",
        "Pellow's Bakery: bakehouse, shop front",
        "Larkspur Cafe: cafe",
        "St Odran's Infirmary: ward, dispensary",
        "Greenmantle Market: stalls",
        "Fenwick Green: park",
    ]
)


@dataclass(frozen=True)
class Resident:
    name: str
    home: str  # "sector: arena"
    lifestyle: str
    requirement: str
    summary: str
    wake: int  # the stated wake time, minutes after midnight
    workplace: tuple[str, str]  # (sector, arena); ("", "") works at home; arena "" any
    hours: tuple[int, int]  # the stated working hours (end before start: overnight)
    not_work_at: str = ""  # a sector it only eats, shops or walks at

    def inputs(self) -> Inputs:
        sector, arena = self.home.split(": ")
        return {
            "agent_name": self.name,
            "lifestyle": self.lifestyle,
            "daily_plan_requirement": self.requirement,
            "summary": self.summary,
            "living_area": f"Marrowby:{sector}:{arena}",
            "places": f"{TOWN}\n{self.home}",
        }


H = 60
BAKER = [
    Resident(
        "Orla Fenn",
        "Fenn cottage: bedroom",
        "Orla Fenn gets up at 4:30 to light the ovens, and is in bed by nine.",
        "Orla Fenn bakes bread at Pellow's Bakery from 5am until 1pm.",
        "Orla Fenn is 52 years old. Orla Fenn is a baker.",
        4 * H + 30,
        ("Pellow's Bakery", ""),
        (5 * H, 13 * H),
    ),
    Resident(
        "Aldo Quist",
        "Quist house: main room",
        "Aldo rises at half past four every day and goes to sleep around 9pm.",
        "He works in the bakehouse of Pellow's Bakery between 5 and 1.",
        "Aldo Quist is 38 years old. Aldo Quist is a baker who loves rye bread.",
        4 * H + 30,
        ("Pellow's Bakery", "bakehouse"),
        (5 * H, 13 * H),
    ),
]
STUDENT = [
    Resident(
        "Tobin Marsh",
        "Marsh lodgings: attic",
        "Tobin Marsh sleeps until 11am and stays up until 2am.",
        "Tobin Marsh attends lectures at Quillon College from 1pm to 5pm.",
        "Tobin Marsh is 20 years old. Tobin Marsh is a student of geology.",
        11 * H,
        ("Quillon College", ""),
        (13 * H, 17 * H),
    ),
    Resident(
        "Nell Varga",
        "Varga flat: bedroom",
        "Nell never gets up before eleven; she goes to bed around 2am.",
        "Nell Varga is a student at Quillon College who goes to classes in the afternoon.",
        "Nell Varga is 19 years old. Nell Varga is a late riser who studies astronomy.",
        11 * H,
        ("Quillon College", ""),
        (13 * H, 17 * H),
    ),
]
NURSE = [
    Resident(
        "Sela Brandt",
        "Brandt house: bedroom",
        "Sela Brandt sleeps during the day.",
        "Sela Brandt works nights at St Odran's Infirmary, 10pm to 6am.",
        "Sela Brandt is 41 years old. Sela Brandt is a nurse on the night shift.",
        15 * H,
        ("St Odran's Infirmary", ""),
        (22 * H, 6 * H),
    ),
    Resident(
        "Ivo Krall",
        "Krall rooms: bedroom",
        "Ivo goes to bed at 8am after his shift and wakes at 3pm.",
        "Ivo Krall is on duty on the ward of St Odran's Infirmary from 22:00 to 06:00.",
        "Ivo Krall is 29 years old. Ivo Krall is a night nurse.",
        15 * H,
        ("St Odran's Infirmary", "ward"),
        (22 * H, 6 * H),
    ),
]
STALL = [
    Resident(
        "Pim Dorsey",
        "Dorsey house: kitchen",
        "Pim Dorsey wakes up at 6am and goes to bed at 10pm.",
        "Pim Dorsey keeps a fruit stall at Greenmantle Market from 7 to 11.",
        "Pim Dorsey is 63 years old. Pim Dorsey grows apples.",
        6 * H,
        ("Greenmantle Market", ""),
        (7 * H, 11 * H),
    ),
    Resident(
        "Ruth Amsel",
        "Amsel cottage: bedroom",
        "Ruth is up at 6 and asleep by 10pm.",
        "Ruth Amsel sells eggs at her stall in Greenmantle Market, 7-11am.",
        "Ruth Amsel is 47 years old. Ruth Amsel keeps hens.",
        6 * H,
        ("Greenmantle Market", ""),
        (7 * H, 11 * H),
    ),
]
LIBRARIAN = [
    Resident(
        "Tove Lind",
        "Lind house: study",
        "Tove Lind wakes at 7am and goes to bed at 11pm.",
        "Tove Lind looks after the books in the library of Quillon College from 9am to 5pm.",
        "Tove Lind is 55 years old. Tove Lind is a librarian.",
        7 * H,
        ("Quillon College", "library"),
        (9 * H, 17 * H),
    ),
    Resident(
        "Cas Whitlow",
        "Whitlow flat: bedroom",
        "Cas gets up around 7:30am, and turns in at 11pm.",
        "Cas Whitlow is the librarian of Quillon College's library, open 9 to 5.",
        "Cas Whitlow is 33 years old. Cas Whitlow catalogues old maps.",
        7 * H + 30,
        ("Quillon College", "library"),
        (9 * H, 17 * H),
    ),
]
INNKEEPER = [
    Resident(
        "Odile Marr",
        "Marr cottage: bedroom",
        "Odile Marr wakes at 6am, and goes to bed at 11pm. She walks along Saltgate Quay "
        "in the evening.",
        "none",
        "Odile Marr is 58 years old. Odile Marr is the innkeeper and looks after the "
        "travellers who stay the night.",
        6 * H,
        ("The Lantern Inn", ""),
        (6 * H, 23 * H),
        not_work_at="Saltgate Quay",
    ),
    Resident(
        "Bertil Kaye",
        "Kaye house: bedroom",
        "Bertil Kaye is up at 6:30am and in bed at 11pm.",
        "Bertil Kaye runs The Lantern Inn and pours ale in its taproom from 11am to 10pm.",
        "Bertil Kaye is 49 years old. Bertil Kaye is an innkeeper who likes the sea.",
        6 * H + 30,
        ("The Lantern Inn", "taproom"),
        (11 * H, 22 * H),
        not_work_at="Saltgate Quay",
    ),
]
EATS_AT_CAFE = [
    Resident(
        "Wren Halloway",
        "Halloway house: study",
        "Wren Halloway wakes at 8am and goes to bed at 11pm.",
        "Wren Halloway translates letters at home, and eats lunch at Larkspur Cafe every day.",
        "Wren Halloway is 36 years old. Wren Halloway is a translator.",
        8 * H,
        ("", ""),
        (8 * H, 23 * H),  # no hours stated: while awake
        not_work_at="Larkspur Cafe",
    ),
    Resident(
        "Jory Fane",
        "Fane rooms: bedroom",
        "Jory wakes at 7am and sleeps at 11pm.",
        "Jory Fane has breakfast at Larkspur Cafe, then studies at Quillon College.",
        "Jory Fane is 22 years old. Jory Fane is a student of law.",
        7 * H,
        ("Quillon College", ""),
        (7 * H, 23 * H),
        not_work_at="Larkspur Cafe",
    ),
]
# Said in less usual ways: the morning as the subject, times that open the sentence, the
# small hours "at night", midnight as "12 a.m.", a shift said as being at a place.
PHRASED = [
    Resident(
        "Tegen Vosper",
        "Vosper cottage: kitchen",
        "Mornings start at 5:00 am for Tegen. Tegen is asleep by 9pm.",
        "Tegen is on duty at the bakehouse of Pellow's Bakery from 6.00 until 14.00.",
        "Tegen Vosper is 41 years old. Tegen Vosper is patient, practical.",
        5 * H,
        ("Pellow's Bakery", "bakehouse"),
        (6 * H, 14 * H),
    ),
    Resident(
        "Bryok Hale",
        "Hale rooms: bedroom",
        "Bryok sleeps through the morning and gets up at 2:30 pm. Bryok is asleep by 7:30 am.",
        "Nights, 10pm to 6 a.m., Bryok is at St Odran's Infirmary.",
        "Bryok Hale is 33 years old. Bryok Hale is steady.",
        14 * H + 30,
        ("St Odran's Infirmary", ""),
        (22 * H, 6 * H),
    ),
    Resident(
        "Elowen Tresize",
        "Tresize house: parlour",
        "Elowen is out of bed at 6:15. Elowen goes to bed at 12 a.m.",
        "From 8:00am to 4:00pm Elowen is at Greenmantle Market. Elowen has lunch at Larkspur Cafe.",
        "Elowen Tresize is 29 years old. Elowen Tresize sells cheese.",
        6 * H + 15,
        ("Greenmantle Market", ""),
        (8 * H, 16 * H),
        not_work_at="Larkspur Cafe",
    ),
    Resident(
        "Massen Kitto",
        "Kitto flat: bedroom",
        "Massen rises at noon. Massen goes to bed at half past three at night.",
        "Massen's hours are 2 p.m. to ten at night. Massen eats at Larkspur Cafe most days.",
        "Massen Kitto is 50 years old. Massen Kitto runs the taproom of The Lantern Inn.",
        12 * H,
        ("The Lantern Inn", "taproom"),
        (14 * H, 22 * H),
        not_work_at="Larkspur Cafe",
    ),
]
EVERYONE = BAKER + STUDENT + NURSE + STALL + LIBRARIAN + INNKEEPER + EATS_AT_CAFE + PHRASED
RESIDENTS = pytest.mark.parametrize("resident", EVERYONE, ids=[r.name for r in EVERYONE])


def _blocks(resident: Resident) -> list[tuple[str, int, int, str, str]]:
    inputs = resident.inputs()
    plan = day_plan(inputs, random.Random(3))
    lines = [f"{hhmm(start)} ({minutes} min): {what}" for what, start, minutes in plan]
    return hourly_blocks({**inputs, "day_plan": lines}, random.Random(3))


def _working(blocks: list[tuple[str, int, int, str, str]]) -> list[tuple[int, int, str, str]]:
    return [
        (start, minutes, sector, arena)
        for what, start, minutes, sector, arena in blocks
        if what.startswith(("working", "studying"))
    ]


def _within(start: int, minutes: int, hours: tuple[int, int]) -> bool:
    """The block lies in the stated hours (which may cross midnight)."""
    begin, end = hours
    if begin < end:
        return begin <= start and start + minutes <= end
    return start >= begin or start + minutes <= end


@RESIDENTS
@pytest.mark.django_db
def test_the_resident_wakes_within_half_an_hour_of_its_stated_time(resident: Resident) -> None:
    plan = day_plan(resident.inputs(), random.Random(3))
    woke = next(start for what, start, _ in plan if what.startswith("waking up"))
    assert abs(woke - resident.wake) <= 30, plan


@RESIDENTS
@pytest.mark.django_db
def test_the_day_plan_covers_the_day_in_broad_strokes(resident: Resident) -> None:
    plan = day_plan(resident.inputs(), random.Random(3))
    assert 5 <= len(plan) <= 9, plan  # the prompt asks a model for 5 to 8, from waking to bed
    assert plan[0][1] == 0 and plan[-1][1] + plan[-1][2] == 24 * H
    assert all(
        start + minutes == following
        for (_, start, minutes), (_, following, _) in itertools.pairwise(plan)
    )


@RESIDENTS
@pytest.mark.django_db
def test_work_is_at_the_workplace_within_the_stated_hours(resident: Resident) -> None:
    blocks = _blocks(resident)
    working = _working(blocks)
    assert working, blocks
    sector, arena = resident.workplace
    home = resident.home.split(": ")[0]
    for start, minutes, at_sector, at_arena in working:
        assert at_sector == (sector or home), blocks
        assert not arena or at_arena == arena, blocks
        assert _within(start, minutes, resident.hours), (hhmm(start), minutes, blocks)


@RESIDENTS
@pytest.mark.django_db
def test_no_work_at_a_place_it_only_eats_shops_or_walks_at(resident: Resident) -> None:
    blocks = _blocks(resident)
    elsewhere = resident.not_work_at or "Fenwick Green"
    assert all(sector != elsewhere for _, _, sector, _ in _working(blocks)), blocks


@pytest.mark.parametrize("resident", NURSE, ids=[r.name for r in NURSE])
@pytest.mark.django_db
def test_a_night_worker_sleeps_by_day_and_works_through_the_night(resident: Resident) -> None:
    assert routine(resident.inputs()).night_work
    blocks = _blocks(resident)
    asleep = [(s, m) for what, s, m, _, _ in blocks if what == "sleeping"]
    assert any(s <= 11 * H < s + m for s, m in asleep), blocks  # asleep in the late morning
    working = _working(blocks)
    assert any(s == 0 for s, *_ in working) and any(s + m == 24 * H for s, m, *_ in working)
    assert not any(s < 6 * H or s >= 22 * H for s, _ in asleep), blocks


# Where it eats, by the meal's time of day as said: a worker who says it lunches somewhere
# goes there for a short break at noon; one who only says it eats there goes after work.
LUNCHES_OUT = Resident(
    "Senara Pascoe",
    "Pascoe house: kitchen",
    "Senara is up at 6:30. Senara goes to bed at 10:30pm.",
    "Senara works at Greenmantle Market from 8 to 5. Senara lunches at Larkspur Cafe.",
    "Senara Pascoe is 36 years old. Senara Pascoe sells honey.",
    6 * H + 30,
    ("Greenmantle Market", ""),
    (8 * H, 17 * H),
)
EATS_THERE = Resident(
    "Jory Nance",
    "Nance flat: bedroom",
    "Jory gets up at 6 sharp. Jory turns in at 11pm.",
    "Jory keeps the pier of Saltgate Quay from 7am till 4pm. Jory is fond of the fish stew "
    "at Larkspur Cafe.",
    "Jory Nance is 44 years old. Jory Nance mends nets.",
    6 * H,
    ("Saltgate Quay", "pier"),
    (7 * H, 16 * H),
)


@pytest.mark.django_db
def test_a_worker_who_lunches_out_takes_a_short_break_there_at_noon() -> None:
    plan = day_plan(LUNCHES_OUT.inputs(), random.Random(3))
    lunch = [(s, m) for what, s, m in plan if what == "having lunch at Larkspur Cafe"]
    assert lunch == [(12 * H, 30)], plan
    assert not any(what.startswith("having dinner at Larkspur") for what, _, _ in plan), plan


@pytest.mark.django_db
def test_a_worker_who_only_says_it_eats_somewhere_goes_there_after_work() -> None:
    plan = day_plan(EATS_THERE.inputs(), random.Random(3))
    assert ("having lunch at Saltgate Quay", 12 * H, 30) in plan, plan
    dinner = [s for what, s, _ in plan if what == "having dinner at Larkspur Cafe"]
    assert dinner and dinner[0] >= 16 * H, plan


# Named by occupation only, in a town of made-up names: the place nearest its trade by
# the common words of both ("cooper", "cooperage"), not the made-up names, and never a
# place much like its own home (a neighbour's).
TRADES_TOWN = "\n".join(
    [
        "Trethowan cooperage: barrel shed, stave yard",
        "Penhallow chandlery: shop floor, rope loft",
        "Karrek tea room: dining room",
        "Mennor cottage: kitchen, bedroom",
        "Polgrean house: kitchen, parlour",  # neighbours' homes: nobody's workplace
        "Chenhalls lodge: bedroom, sitting room",
        "Bosvean school: classroom, staff room",
        "Lannow museum: gallery, store room",
        "Trelawn pottery: throwing room, kiln yard",
    ]
)


@pytest.mark.parametrize(
    ("said", "workplace"),
    [
        ("Wenna is Porthkerris's only cooper.", "Trethowan cooperage"),
        ("Wenna has been the teacher here for years.", "Bosvean school"),
        ("Wenna is the one schoolmaster in Porthkerris Cove.", "Bosvean school"),
        ("Wenna is Porthkerris's ship chandler.", "Penhallow chandlery"),
        # What it is doing now names a room of a home: not where it works.
        ("Wenna is the only potter here. Wenna is papering the kitchen.", "Trelawn pottery"),
        ("Wenna works as a potter. Wenna is tidying the bedroom.", "Trelawn pottery"),
    ],
)
@pytest.mark.django_db
def test_an_occupation_alone_names_its_workplace_among_made_up_names(
    said: str, workplace: str
) -> None:
    inputs = {
        "agent_name": "Wenna Tonkin",
        "lifestyle": "Wenna is up at 7. Wenna goes to bed at 11pm.",
        "daily_plan_requirement": "Wenna works from 9 to 5. Wenna has tea at Karrek tea room.",
        "summary": f"Wenna Tonkin is 39 years old. Wenna Tonkin is kind. {said}",
        "living_area": "Porthkerris:Mennor cottage:kitchen",
        "places": TRADES_TOWN,
    }
    assert routine(inputs).workplace == workplace


@pytest.mark.django_db
def test_an_occupation_no_place_stands_out_for_works_at_home_among_many_homes() -> None:
    """Neighbours' homes are set aside, not counted as places far from the trade (which
    made a green stand out for a bicycle mender once)."""
    town = "\n".join(
        [
            "Mennor cottage: main room",
            "Polgrean house: main room",
            "Chenhalls flat: main room",
            "Karrek cafe: cafe",
            "Trevose shop: shop floor",
            "Bosworgy park: green",
            "Market square: square",
        ]
    )
    inputs = {
        "agent_name": "Wenna Tonkin",
        "lifestyle": "Wenna goes to bed around 10 pm and wakes up around 6 am.",
        "daily_plan_requirement": "",
        "summary": "Wenna Tonkin is 30 years old. Wenna Tonkin is careful, cheerful. "
        "Wenna Tonkin mends bicycles. Wenna Tonkin is saving for a new lathe.",
        "living_area": "Porthkerris:Mennor cottage:main room",
        "places": town,
    }
    assert routine(inputs).workplace == ""


COVE = "\n".join(
    [
        "Carnbrea infirmary: ward, dispensary",
        "Bosvean school: classroom, staff room",
        "Tregear boatyard: slipway, sail loft",
        "Karrek tea room: dining room",
        "Penrose bakery: bakehouse, shop front",
        "Mennor cottage: kitchen, bedroom",
        "Polgrean house: kitchen, parlour",
    ]
)


@pytest.mark.parametrize(
    ("innate", "learned", "currently", "workplace"),
    [
        (
            "patient, caring, gentle",
            "Wenna is the cove's nurse.",
            "Wenna is nursing a sick neighbour.",
            "Carnbrea infirmary",
        ),
        (
            "cheerful, diligent",
            "Wenna is the cove's nurse.",
            "Wenna is baking a cake for her niece.",
            "Carnbrea infirmary",
        ),
        (
            "restless, proud, curious",
            "Wenna is the cove's nurse.",
            "Wenna is teaching herself to paint.",
            "Carnbrea infirmary",
        ),
        (
            "patient, caring, gentle",
            "Wenna is the cove's nurse.",
            "Wenna is building a rowing boat.",
            "Carnbrea infirmary",
        ),
        (
            "restless, proud, curious",
            "Wenna has been the baker here for years.",
            "Wenna is sewing new sails for her brother's boat.",
            "Penrose bakery",
        ),
        (
            "cheerful, diligent",
            "Wenna works as a schoolteacher.",
            "Wenna is building a rowing boat.",
            "Bosvean school",
        ),
        # What it does these days is no occupation: it works at home.
        (
            "warm, talkative",
            "Wenna is kind to everyone she meets.",
            "Wenna is building a dinghy in the shed.",
            "",
        ),
    ],
)
@pytest.mark.django_db
def test_the_workplace_is_read_from_the_identity_fields_not_traits_or_pastimes(
    innate: str, learned: str, currently: str, workplace: str
) -> None:
    """Innate traits ("patient, caring") and what a resident is doing these days ("is
    baking a cake", "is building a boat") say nothing of where it works; read as the
    summary's sentences they once sent a nurse to the bakery or nowhere."""
    inputs = {
        "agent_name": "Wenna Tonkin",
        "identity": f"Name: Wenna Tonkin\nAge: 39\nInnate traits: {innate}\n"
        f"Learned traits: {learned}\nCurrently: {currently}",
        "lifestyle": "Wenna is up at 7. Wenna goes to bed at 11pm.",
        "daily_plan_requirement": "Wenna works from 9 to 5. Wenna has tea at Karrek tea room.",
        "summary": f"Wenna Tonkin is 39 years old. Wenna Tonkin is {innate}. {learned} {currently}",
        "living_area": "Porthkerris:Mennor cottage:kitchen",
        "places": COVE,
    }
    assert routine(inputs).workplace == workplace
