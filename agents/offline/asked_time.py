"""The moment a question asks about ("where will you be at 3pm tomorrow?") or a thought
means ("I should ask Jora today ..."), for the offline interview and intention rules: a
small interface, `moment_asked` and `moment_meant`, over a reading of clock times and
parts of the day, and of the day named (a date or a named day, by the time parser,
`clock.times_in`; else "tomorrow" or a weekday).
"""

from __future__ import annotations

import re
from datetime import datetime, time, timedelta

from agents.offline.clock import times_in

_CLOCK = re.compile(
    r"\b(?:(?P<half>half past|quarter past|quarter to)\s+)?(?P<hour>\d{1,2})"
    r"(?:[:.](?P<minute>\d{2}))?\s*(?P<meridiem>a\.?m\.?|p\.?m\.?|o'clock)?(?![\w:])",
    re.IGNORECASE,
)
_HOUR_WORDS = {
    word: number
    for number, word in enumerate(
        [
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
        ],
        start=1,
    )
}
_HOUR_WORD = re.compile(
    rf"\b(?:(?P<half>half past|quarter past|quarter to)\s+)?(?P<hour>{'|'.join(_HOUR_WORDS)})"
    r"(?:\s+(?P<meridiem>o'clock))?\b",
    re.IGNORECASE,
)
# Named moments and parts of the day, at the hour they usually stand for.
_PARTS = {
    "midnight": 0,
    "early morning": 7,
    "morning": 9,
    "noon": 12,
    "midday": 12,
    "lunchtime": 12,
    "lunch": 12,
    "early afternoon": 13,
    "afternoon": 15,
    "teatime": 16,
    "evening": 19,
    "dinnertime": 18,
    "tonight": 20,
    "night": 22,
}
_PM_WORDS = ("afternoon", "evening", "tonight", "night")
_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def _day(question: str, now: datetime) -> datetime:
    # A day the time parser reads ("on February 14", "next Tuesday", "tomorrow").
    named = next((w.day for w in times_in(question, today=now.date()) if w.day), None)
    if named is not None:
        return datetime.combine(named, now.time(), tzinfo=now.tzinfo)
    lowered = question.lower()
    if "day after tomorrow" in lowered:
        return now + timedelta(days=2)
    if "tomorrow" in lowered:
        return now + timedelta(days=1)
    for index, name in enumerate(_DAYS):
        if re.search(rf"\b{name}\b", lowered):
            return now + timedelta(days=(index - now.weekday()) % 7 or 7)
    return now


def _clock(question: str) -> time | None:
    # A time of day the parser reads with its am/pm ("on February 14 at 5pm": not 14:00).
    stated = next(
        (w.start for w in times_in(question) if w.start is not None and not w.bare and not w.part),
        None,
    )
    if stated is not None:
        return time(stated // 60, stated % 60)
    lowered = question.lower()
    found = _CLOCK.search(question) or _HOUR_WORD.search(question)
    if found is None:
        part = next((p for p in _PARTS if re.search(rf"\b{p}\b", lowered)), None)
        return time(_PARTS[part]) if part is not None else None
    raw = found["hour"].lower()
    hour = _HOUR_WORDS.get(raw) or int(raw)
    minute = int(found.groupdict().get("minute") or 0)
    if hour > 23 or minute > 59:
        return None
    meridiem = (found["meridiem"] or "").replace(".", "").lower()
    if meridiem == "pm" and hour < 12:
        hour += 12
    elif meridiem == "am" and hour == 12:
        hour = 0
    elif meridiem in ("", "o'clock") and hour < 12:
        later = any(re.search(rf"\b{p}\b", lowered) for p in _PM_WORDS)
        if later or hour < 7:  # "at 5" means the afternoon, "at 8 tonight" the evening
            hour += 12
    moment = datetime(2000, 1, 1, hour, minute)
    half = (found["half"] or "").lower()
    if half == "half past":
        moment += timedelta(minutes=30)
    elif half == "quarter past":
        moment += timedelta(minutes=15)
    elif half == "quarter to":
        moment -= timedelta(minutes=15)
    return moment.time()


def moment_asked(question: str, now: datetime) -> datetime | None:
    """The moment `question`, asked at `now`, asks about; None when it names no time of
    day (a day alone, "tomorrow", is its morning)."""
    clock = _clock(question)
    day = _day(question, now)
    if clock is None:
        if day.date() == now.date():
            return None
        clock = time(_PARTS["morning"])
    return datetime.combine(day.date(), clock, tzinfo=now.tzinfo)


def moment_meant(thought: str, now: datetime) -> datetime | None:
    """The moment a thought means to do something: its time of day on the day it names
    (today unless it names another); "today" alone, or a time of today already past,
    is as soon as may be (now). None when it names no time at all."""
    moment = moment_asked(thought, now)
    if moment is None:
        today = re.search(r"\b(?:today|now|right away|soon)\b", thought, re.IGNORECASE)
        return now if today else None
    return max(moment, now)
