"""The offline interview's and intention's parts: the moment a question asks about or a
thought means, the kind of question by meaning, and what a thought commits to. Phrasings,
people and places made up here."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from agents.offline.asked_time import moment_asked, moment_meant
from agents.offline.intention import intention
from agents.offline.relevance import fits, question_kind

NOW = datetime(2024, 5, 6, 10, 20, tzinfo=UTC)  # a Monday


@pytest.mark.parametrize(
    ("question", "day", "hour", "minute"),
    [
        ("Where will you be at 3pm tomorrow?", 7, 15, 0),
        ("Tomorrow at 15:00, where can I find you?", 7, 15, 0),
        ("What are you doing at half past four tomorrow?", 7, 16, 30),
        ("Where are you at noon today?", 6, 12, 0),
        ("What will you be up to on Wednesday at 9am?", 8, 9, 0),
        ("What are you doing tonight at eight?", 6, 20, 0),
        ("Where will you be tomorrow afternoon?", 7, 15, 0),
        ("Where will you be at 11 pm?", 6, 23, 0),
    ],
)
def test_the_moment_a_question_asks_about(question: str, day: int, hour: int, minute: int) -> None:
    assert moment_asked(question, NOW) == datetime(2024, 5, day, hour, minute, tzinfo=UTC)


def test_a_thought_of_today_means_now_and_one_without_a_time_means_none() -> None:
    assert moment_meant("I should ask Tove today about the boat", NOW) == NOW
    assert moment_meant("I will stop by at 9am", NOW) == NOW  # already past: as soon as may be
    assert moment_meant("I like the smell of tar", NOW) is None


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("If I wanted to find you at 2pm tomorrow, where would I look?", "plan"),
        ("Where are you spending tomorrow at five?", "plan"),
        ("Heard anything new lately?", "news"),
        ("What have people been talking about?", "news"),
        ("What kind of work do you do?", "self"),
    ],
)
def test_the_kind_of_a_question_by_meaning(question: str, kind: str) -> None:
    assert question_kind(question).label == kind


@pytest.mark.django_db
def test_the_memory_that_answers_stands_out_whatever_the_words() -> None:
    memories = [
        "The footbridge over Gull Creek is shut for repairs until the end of the month",
        "Tove Lind plans to be mending nets from 09:00 to 12:00 on May 06",
        "Tove Lind likes a strong cup of tea in the morning",
    ]
    lifts = [f.lift for f in fits("Can I walk across the creek these days?", memories)]
    assert lifts[0] == max(lifts) and lifts[0] > lifts[1] + 1


@pytest.mark.django_db
def test_a_thought_commits_to_a_named_place_at_its_time() -> None:
    meant = intention(
        {
            "thought": "I will go to Sorrel yard at 4pm to help Tove tar the boat",
            "date": "2024-05-06",
            "time": "10:20",
            "places": "Sorrel yard: slipway\nTove's house: kitchen",
            "plan": ["2024-05-06 10:00-12:00: mending nets, at kitchen of Tove's house"],
            "summary": "Tove Lind mends nets.",
            "agent_name": "Tove Lind",
        }
    )
    assert meant is not None
    assert (meant.place, meant.start.hour, meant.what) == (
        "Sorrel yard:slipway",
        16,
        "go to Sorrel yard at 4pm to help Tove tar the boat",
    )


@pytest.mark.parametrize(
    "thought",
    [
        "Don't forget: Sorrel yard at six o'clock in the evening, to pay what I owe Tove.",
        "Note to self: six in the evening, Sorrel yard, fetch the oars Tove left for me.",
        "Mustn't be late: 6 pm at Sorrel yard, I promised to see the new hull.",
        "Reminder: Sorrel yard at 6 pm, pay Tove for the tar.",  # a memo, no pronoun
        "Tonight's job: six in the evening, Sorrel yard, scrape the hull.",
    ],
)
@pytest.mark.django_db
def test_a_reminder_to_oneself_commits_today_at_its_hour(thought: str) -> None:
    meant = intention(
        {
            "thought": thought,
            "date": "2024-05-09",  # a Thursday: "Don" of "Don't" is no Thursday a week on
            "time": "08:00",
            "places": "Sorrel yard: slipway\nTove's house: kitchen",
            "plan": ["none"],
            "summary": "Tove Lind mends nets.",
            "agent_name": "Tove Lind",
        }
    )
    assert meant is not None
    assert (meant.place, meant.start.isoformat()) == ("Sorrel yard:slipway", "2024-05-09T18:00:00")


@pytest.mark.parametrize(
    "thought",
    [
        "Tove plans to be at Sorrel yard at 6 pm.",
        "Bram is going to Sorrel yard at six this evening to tar the boat.",
        "Sorrel yard closes at 6 pm on weekdays.",
    ],
)
@pytest.mark.django_db
def test_what_others_plan_or_a_place_keeps_is_no_commitment_of_its_own(thought: str) -> None:
    meant = intention(
        {
            "thought": thought,
            "date": "2024-05-09",
            "time": "08:00",
            "places": "Sorrel yard: slipway\nTove's house: kitchen",
            "plan": ["none"],
            "summary": "Jory Nance mends nets.",
            "agent_name": "Jory Nance",
        }
    )
    assert meant is None
