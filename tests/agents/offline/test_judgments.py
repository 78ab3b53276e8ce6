"""The stand-in's importance and newsworthiness by meaning, and the social loop for news of
any kind: told to one resident, passed on by it to another.

Towns, people, places and news are made up here, in several phrasings per kind, none of
them in the example sets (agents/offline/examples/).
"""

from __future__ import annotations

import random

import pytest

from agents.offline.judgments import EVERYDAY, HEARSAY, NEWSWORTHY, importances, kinds
from agents.offline.news import takeaways
from agents.offline.talk import converse_line

pytestmark = pytest.mark.django_db

# Each kind of news, three phrasings (some of the form "X is ...ing ...", like a sighting).
NEWS = {
    "storm warning": (
        "A gale warning is out for Pellmouth harbour tonight and the trawlers must stay in.",
        "The coastguard is warning that a severe storm will reach Pellmouth before dawn.",
        "Forecasters expect hurricane-force winds on the Pellmouth coast this evening.",
    ),
    "closed bridge": (
        "The Osric Bridge is closed after the flood cracked its pillars.",
        "Engineers are shutting the Osric Bridge to all traffic until the spring.",
        "Nobody can cross the Osric Bridge any more; the council has fenced it off.",
    ),
    "chess final": (
        "Orla Pym is playing Benedikt Ash in the chess final at the Corn Exchange on Saturday.",
        "The county chess final will be decided at the Corn Exchange this Saturday.",
        "Benedikt Ash reached the final of the chess championship.",
    ),
    "lecture": (
        "Professor Halvard Quist is giving a lecture on glaciers at the Athenaeum tomorrow.",
        "There is a public talk about the history of the salt mines at the Athenaeum tonight.",
        "Dr Yusra Penhallow will speak about comets at the Athenaeum on Friday evening.",
    ),
    "death": (
        "Old Tobiah Crewe passed away in the night.",
        "Marta Quell's grandfather died this morning at the cottage.",
        "The village is mourning Father Anselm, who died yesterday.",
    ),
    "birth": (
        "Sunniva Rusk gave birth to twin boys last night.",
        "Caspar and Liesl Dunmore are expecting their first child in April.",
        "A baby girl was born to the keeper of the Gull Inn this morning.",
    ),
    "new job": (
        "Fritjof Nakamura was hired as the new lighthouse keeper.",
        "Perpetua Vane is starting work as the head of the Thornbury school next month.",
        "Wilmot Sayer got the job of harbourmaster.",
    ),
    "closure": (
        "The Thornbury cannery is closing for good and sixty people will lose their jobs.",
        "Hazel's general store is shutting its doors at the end of the week.",
        "The only doctor's surgery in Thornbury will close in March.",
    ),
    "election": (
        "Ambrose Teague is running for reeve of Thornbury.",
        "Thornbury votes for a new council on Tuesday.",
        "Greta Holm announced that she will stand in the election for warden.",
    ),
    "accident": (
        "A cart overturned on the Fell Road and its driver was badly hurt.",
        "Ivo Marsh fell through the ice on Linmere and was pulled out half frozen.",
        "Two climbers had to be rescued from the cliffs above Pellmouth.",
    ),
    "moving away": (
        "Rosalind Ebb is leaving Thornbury for good to live with her sister abroad.",
        "The Dunmore family are selling their farm and moving to the city.",
        "Osgar Lindahl is packing up his workshop to move south.",
    ),
    "market": (
        "A spice market is coming to the Thornbury square on Saturday.",
        "The traders' fair opens at the Corn Exchange this weekend.",
        "Fishmongers from all along the coast are holding a market at the quay on Sunday.",
    ),
}
PHRASINGS = [(kind, text) for kind, texts in NEWS.items() for text in texts]

ROUTINE = (
    "Hild Mercer is sleeping.",
    "Tamar Oyelaran is brushing her teeth.",
    "Piet Sorensen is eating a bowl of oats.",
    "Ulla Brisk is walking along the lane.",
    "the loom is idle",
    "the washstand is idle",
    "Gideon Farrow is washing up the supper plates.",
    "Nell Ashby is getting dressed.",
    "Yorick Lamb is having lunch at the inn.",
)


@pytest.fixture(scope="module")
def routine_ceiling(django_db_blocker: pytest.FixtureRequest) -> int:
    with django_db_blocker.unblock():  # type: ignore[attr-defined]
        return max(importances(ROUTINE))


@pytest.mark.parametrize("text", ROUTINE)
def test_everyday_routine_is_rated_low_and_is_no_news(text: str) -> None:
    assert importances([text])[0] <= 3
    assert kinds([text]) == [EVERYDAY]


@pytest.mark.parametrize(("kind", "text"), PHRASINGS)
def test_news_of_any_kind_is_rated_above_everyday_routine(
    kind: str, text: str, routine_ceiling: int
) -> None:
    (rating,) = importances([text])
    assert rating >= 5 and rating > routine_ceiling + 1, (kind, rating)


@pytest.mark.parametrize(("kind", "text"), PHRASINGS)
def test_news_of_any_kind_is_newsworthy(kind: str, text: str) -> None:
    assert kinds([text])[0] in NEWSWORTHY, kind


def test_the_same_text_is_judged_the_same_every_time() -> None:
    texts = [text for _, text in PHRASINGS[:6]] + list(ROUTINE[:3])
    assert importances(texts) == importances(list(reversed(texts)))[::-1]
    assert kinds(texts) == kinds(list(reversed(texts)))[::-1]


TELLER, HEARER, THIRD = "Odile Varga", "Bram Oduya", "Cass Whitlock"
PLACES = "Thornbury: Corn Exchange, Gull Inn, quay\nPellmouth: harbour, Athenaeum"


def _line(speaker: str, listener: str, memories: list[str], dialogue: list[str]) -> str:
    text, _ = converse_line(
        {
            "speaker": speaker,
            "listener": listener,
            "dialogue": dialogue,
            "memories": [f"{i}. {m}" for i, m in enumerate(memories, 1)],
            "time": "10:00",
        },
        random.Random(3),
    )
    return text


def _conversation(speaker: str, listener: str, memories: list[str]) -> list[str]:
    """The listener greets, the speaker answers with what it has to tell."""
    first = speaker.split()[0]
    dialogue = [f"{listener}: Hi {first}, how are you?"]
    return [*dialogue, f"{speaker}: {_line(speaker, listener, memories, dialogue)}"]


def _memo(hearer: str, teller: str, dialogue: list[str]) -> str:
    memo, _, _ = takeaways(
        {
            "agent_name": hearer,
            "partner": teller,
            "dialogue": dialogue,
            "places": PLACES,
            "date": "2031-05-06",
            "relationship": f"{hearer} knows {teller}.",
            "summary": f"{hearer} mends nets at the quay.",
        },
        random.Random(3),
    )
    return memo


@pytest.mark.parametrize(("kind", "text"), PHRASINGS)
def test_news_told_to_one_resident_is_passed_on_to_another(kind: str, text: str) -> None:
    """The teller picks the news out of everyday sightings, the hearer keeps it as its own
    memory saying who told it, and tells it to a third resident in a later conversation."""
    sightings = [
        f"{THIRD} is eating breakfast at the Gull Inn.",
        "the net rack is idle",
        f"{HEARER} is walking to the quay.",
    ]
    told = _conversation(TELLER, HEARER, [sightings[0], text, sightings[1]])
    memo = _memo(HEARER, TELLER, told)
    assert memo.endswith(f"({TELLER} told me)."), (kind, told[-1], memo)
    passed = _conversation(HEARER, THIRD, [sightings[2], memo, sightings[1]])
    said = passed[-1].split(": ", 1)[1]
    assert f"{TELLER} told me that" in said, (kind, said)
    fact = memo.removesuffix(f" ({TELLER} told me).")
    assert fact.lower().rstrip(".") in said.lower(), (kind, said)


@pytest.mark.parametrize(("kind", "text"), PHRASINGS[::2])
def test_news_passed_on_again_is_kept_as_second_hand_and_weighs_less(kind: str, text: str) -> None:
    """The third resident keeps who told it and from whom that one had it, and rates it
    HEARSAY below the same memo had the second resident made the news itself: hearsay
    matters less the further it has come (with every hearer's one thought told, heard news
    otherwise went five hops in two days)."""
    memo = _memo(HEARER, TELLER, _conversation(TELLER, HEARER, [text]))
    passed = _memo(THIRD, HEARER, _conversation(HEARER, THIRD, [memo]))
    fact = memo.removesuffix(f" ({TELLER} told me).")
    assert passed == f"{fact} ({HEARER} told me, having heard it from {TELLER}).", (kind, passed)
    firsthand = f"{fact} ({HEARER} told me)."
    first, second = importances([firsthand, passed])
    assert second == max(1, first - HEARSAY), (kind, firsthand, first, passed, second)
    assert second < first, (kind, first, second)  # whatever HEARSAY is set to, it weighs less
    assert kinds([passed]) == kinds([firsthand]), kind  # news all the same


@pytest.mark.parametrize(
    ("summary", "sociable"),
    [
        (
            "Name: Wren Halloway\nAge: 24\nInnate traits: lively, talkative, warm\n"
            "Learned traits: Wren Halloway is a student of geology at the mining school who "
            "loves meeting people at the market.",
            True,
        ),
        (
            "Name: Osric Penhale\nAge: 58\nInnate traits: shy, private, careful\n"
            "Learned traits: Osric Penhale repairs clocks alone in his workshop and rarely "
            "goes out in the evening.",
            False,
        ),
    ],
)
def test_sociable_is_read_from_the_surest_line_of_the_identity(
    summary: str, sociable: bool
) -> None:
    """The study or work a summary names says nothing of it; the traits do."""
    from agents.offline.news import _sociable

    assert _sociable(summary) is sociable
