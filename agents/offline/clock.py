"""Time expressions in free text, read by a parser (ctparse), for the offline stand-in:
clock times, ranges (overnight ones too), parts of the day and named days, in identity
fields, scenarios and questions.

`times_in(text)` gives each expression found with where it stands in the text, so a caller
can tell which clause it belongs to. Hours given without am/pm ("from 7 to 11") are kept
as said and marked `bare`: whether a bare 10 is morning or night depends on what it is the
time of (waking or going to bed), which the caller knows and the parser does not.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta
from functools import lru_cache

from ctparse.ctparse import ctparse_gen
from ctparse.types import Interval, Time

DAY = 24 * 60

# The hours an activity said to happen in a part of the day spans, by the parser's names
# for the parts ("late evening" is `lateevening`), and the parts it has no name for.
PARTS: dict[str, tuple[int, int]] = {
    "earlymorning": (5 * 60, 8 * 60),
    "morning": (7 * 60, 12 * 60),
    "forenoon": (9 * 60, 12 * 60),
    "noon": (12 * 60, 13 * 60),
    "afternoon": (13 * 60, 17 * 60),
    "evening": (18 * 60, 22 * 60),
    "lateevening": (21 * 60, 23 * 60 + 30),
    "night": (22 * 60, 6 * 60),
    "dawn": (5 * 60, 7 * 60),
    "dusk": (18 * 60, 20 * 60),
}
_MORE_PARTS = {"dawn": "dawn", "daybreak": "dawn", "sunrise": "dawn", "dusk": "dusk"}
_MORE_PARTS |= {"sunset": "dusk", "nightfall": "dusk", "twilight": "dusk"}

# Words that stand for a clock time only when a preposition of time comes before them:
# "at 5", "from 7 to 11", "by ten", not "the 3 children" or "room 12".
_PREPOSITION = r"(at|from|to|until|till|til|by|before|after|around|about|since|between)"
_BEFORE_BARE = re.compile(rf"\b{_PREPOSITION}\s*$", re.IGNORECASE)
_STARTS_BARE = re.compile(rf"{_PREPOSITION}\b", re.IGNORECASE)
_MERIDIEM = re.compile(
    r"\d\s*[ap]\.?\s?m\b|\d:\d\d|noon|midnight|o'?clock|morning|afternoon|evening|night",
    re.IGNORECASE,
)
# A part of the day said as when something is done ("at night", "in the evening", "this
# morning", "the night shift"), not as a thing ("stay the night").
_PART_OF = re.compile(
    r"\b(at|in|by|during|every|each|through|all|on|this|tonight|tomorrow|next)\s+(the\s+)?"
    r"(very\s+)?(early\s+|late\s+)?\w+$",
    re.IGNORECASE,
)
_TWELVE_AM = re.compile(r"\b12(?:[:.]\d\d)?\s*a\.?\s?m\b", re.IGNORECASE)
# Clauses part at punctuation (after "a.m." or "p.m." only when a capital follows) and
# before "and", "but" or "then".
_CLAUSE = re.compile(
    r"(?<![aApP]\.[mM]\.)(?<=[.;!?,])\s+|(?<=[aApP]\.[mM]\.)\s+(?=[A-Z])"
    r"|(?<!\d)\s+(?=\band\b|\bbut\b|\bthen\b)"
)
_AT_NIGHT = re.compile(r"\bnight\b", re.IGNORECASE)
_UNTIL = re.compile(r"\b(until|till|til|to|before|by)\s*$", re.IGNORECASE)
_RANGE_JOIN = re.compile(r"\s*(?:\bto\b|\buntil\b|\btill\b|\band\b|-|\u2013)\s*", re.IGNORECASE)
_NAMED_DAY_RULES = frozenset(
    {
        "ruleNamedDOW",
        "ruleToday",
        "ruleTomorrow",
        "ruleAfterTomorrow",
        "ruleYesterday",
        "ruleBeforeYesterday",
        "ruleNextDOW",
        "ruleThisDOW",
        "ruleAtDOW",
        "ruleDOWNextWeek",
        "ruleNamedMonth",
    }
)
_SKIPPED = re.compile(r"[^\w:.'-]+")

logging.getLogger("ctparse").setLevel(logging.ERROR)


@dataclass(frozen=True)
class When:
    """A time expression: what it says, and where it stands in the text."""

    text: str  # the words it was read from
    at: int  # its first character in the text
    start: int | None  # minutes after midnight it begins (None: open, "until 8pm")
    end: int | None  # minutes after midnight it ends (None: a point or open, "from 5pm")
    part: str = ""  # the part of the day it names ("morning", "night"), if one
    bare: bool = False  # a clock time given without am/pm ("at 7", "from 7 to 11")
    day: date | None = None  # the day it names ("tomorrow", "on Friday"), if one
    by: bool = False  # an end said as a time to be done by ("by ten", "before eleven")

    @property
    def is_range(self) -> bool:
        return self.start is not None and self.end is not None

    @property
    def overnight(self) -> bool:
        """A range that crosses midnight ("10pm to 6am")."""
        return self.start is not None and self.end is not None and self.end < self.start


def times_in(text: str, *, today: date | None = None) -> list[When]:
    """The time expressions in `text`, in the order they stand. Named days ("tomorrow",
    "next Tuesday") are resolved against `today`."""
    found: list[When] = []
    offset = 0
    for clause in _CLAUSE.split(text):
        at = text.find(clause, offset)
        offset = at + len(clause)
        found += [_moved(w, at) for w in _clause_times(clause, today or date(2000, 1, 3))]
    return found


@lru_cache(maxsize=4096)
def _clause_times(clause: str, today: date) -> tuple[When, ...]:
    """A clause's expressions: the parser's best reading, then the best readings of the
    words before and after it (identity texts repeat day after day: cached)."""
    return tuple(sorted(_read(clause, 0, today, depth=3) + _named_parts(clause), key=_at))


def _at(when: When) -> int:
    return when.at


def _read(text: str, at: int, today: date, *, depth: int) -> list[When]:
    when = _best(text, today) if depth else None
    if when is None:
        return []
    before, after = text[: when.at], text[when.at + len(when.text) :]
    return [
        *_read(before, at, today, depth=depth - 1),
        _moved(when, at),
        *_read(after, at + when.at + len(when.text), today, depth=depth - 1),
    ]


def _moved(when: When, offset: int, text: str = "") -> When:
    return replace(when, text=text or when.text, at=when.at + offset)


def _best(text: str, today: date) -> When | None:
    clean, where = _normalised(text)
    if not re.search(r"\w", clean):
        return None
    found, inside = _best_reading(clean, today)
    if found is None and inside:  # a day read inside a word ("sun" of "museum") hid the time
        found, _ = _best_reading(_masked(clean, inside), today)
    if found is None:
        return None
    at, end = where[found.at], where[found.at + len(found.text) - 1] + 1
    return _moved(found, at - found.at, text[at:end])


def _best_reading(clean: str, today: date) -> tuple[When | None, list[int]]:
    """The parser's best reading of `clean`, and the places of the letters its readings
    began or ended inside a word at."""
    reference = datetime.combine(today, datetime.min.time())
    # No timeout: a reading must not depend on how busy the machine is (a clause is short).
    readings = ctparse_gen(
        clean,
        ts=reference,
        timeout=0,
        latent_time=False,
        relative_match_len=0.1,
        max_stack_depth=30,
    )
    best: tuple[tuple[bool, bool, int, float], When] | None = None
    inside: list[int] = []
    for reading in readings:
        if reading is None:
            continue
        found = reading.resolution
        if isinstance(found, (Interval, Time)):
            inside += [
                edge
                for edge in (found.mstart, found.mend - 1)
                if 0 <= edge < len(clean) and clean[edge].isalpha() and _within_word(clean, edge)
            ]
        when = _when(clean, found, reading.production, today)
        if when is None:
            continue
        # A time of day before a date alone: "from 7 to 11" is hours, not March 7-11.
        timed = when.start is not None or when.end is not None
        rank = (timed, not when.part, len(when.text), reading.score)
        if best is None or rank > best[0]:
            best = (rank, when)
    return (None if best is None else best[1]), inside


def _masked(clean: str, inside: list[int]) -> str:
    """`clean` with each word holding a letter at `inside` written as x's (the same length,
    so places map back)."""
    masked = list(clean)
    for edge in inside:
        start, end = edge, edge
        while start > 0 and clean[start - 1].isalpha():
            start -= 1
        while end < len(clean) and clean[end].isalpha():
            end += 1
        masked[start:end] = "x" * (end - start)
    return "".join(masked)


def _within_word(text: str, at: int) -> bool:
    """Whether the letter at `at` has letters on both sides or begins a longer word it
    does not end."""
    before = at > 0 and text[at - 1].isalpha()
    after = at + 1 < len(text) and text[at + 1].isalpha()
    return before or after


def _normalised(text: str) -> tuple[str, list[int]]:
    """The text as the parser reads it (runs of spaces and commas as one space, dashes as
    "-"), with each of its characters' place in `text`, so spans map back."""
    clean: list[str] = []
    where: list[int] = []
    for index, char in enumerate(text):
        if char.isspace() or char in ",;()[]{}":
            if clean and clean[-1] != " ":
                clean.append(" ")
                where.append(index)
            continue
        clean.append("-" if unicodedata.category(char) == "Pd" else char)
        where.append(index)
    while clean and clean[-1] == " ":
        clean.pop()
        where.pop()
    return "".join(clean), where


def _when(text: str, found: object, production: tuple[object, ...], today: date) -> When | None:
    if isinstance(found, Interval):
        start_at, end_at = found.mstart, found.mend
        first, last = found.t_from, found.t_to
    elif isinstance(found, Time):
        start_at, end_at = found.mstart, found.mend
        first, last = found, None
    else:  # a duration ("for 30 years") is no time of day
        return None
    while start_at < end_at and not text[start_at].isalnum():
        start_at += 1
    while end_at > start_at and not text[end_at - 1].isalnum():
        end_at -= 1
    if text[end_at : end_at + 1] == "s" and not re.match(r"\w", text[end_at + 1 : end_at + 2]):
        end_at += 1  # "mornings", "nights"
    words = text[start_at:end_at]
    inside = re.match(r"\w|['\u2019](?!s\b)\w", text[end_at : end_at + 3])
    if inside or re.search(r"\w$", text[:start_at]):
        return None  # inside a word: "fr" of "from" is no Friday, "Don" of "Don't" no Thursday
    ends = [t for t in (first, last) if t is not None]
    if not ends or not all(_honest(t, words) for t in ends):
        return None
    bare = any(t.hasTime for t in ends) and not _MERIDIEM.search(words)
    timed = _BEFORE_BARE.search(text[:start_at]) or _STARTS_BARE.match(words)
    if bare and not timed and not (first is not None and last is not None):
        return None  # a bare number with no "at"/"from" before it: a count, not a time
    start = _minute(first) if first is not None else None
    end = _minute(last) if last is not None else None
    part = next((t.POD for t in ends if t.POD and not t.hasTime), "") or ""
    said_as_when = _PART_OF.search(text[:end_at]) or re.match(r"\s+shifts?\b", text[end_at:])
    if part and not (timed or words.lower().endswith("s") or said_as_when):
        return None  # "stay the night", "an early riser": no hours of the day
    if part and start is None and end is None and part in PARTS:
        start, end = PARTS[part]
    elif start is not None and last is None and isinstance(found, Time):
        end = None
    bare = bare and not part
    # Each end of a range by its own words ("2 pm to ten at night").
    pieces = _RANGE_JOIN.split(words, maxsplit=1) if end is not None else [words]
    if _TWELVE_AM.search(pieces[0]):
        start = _after_midnight(start)
    if _AT_NIGHT.search(pieces[0]):
        start = _small_hours(start)
    if end is not None and _TWELVE_AM.search(pieces[-1]):
        end = _after_midnight(end)
    if end is not None and _AT_NIGHT.search(pieces[-1]):
        end = _small_hours(end)
    if found is not None and isinstance(found, Interval) and start is not None and end is not None:
        start = _afternoon_start(words, start, end)
    by = False
    if isinstance(found, Time) and start is not None and (until := _UNTIL.search(text[:start_at])):
        start, end = None, start  # "until 11am": when something ends
        by = until.group(1).lower() in ("by", "before")
    # The parser knows German days too: a day named in two letters ("do", "fr") is none.
    day = _day(ends, production, today) if re.search(r"[^\W\d]{3,}", words) else None
    if start is None and end is None and day is None:
        return None
    return When(words, start_at, start, end, part, bare, day, by)


def _afternoon_start(words: str, start: int, end: int) -> int:
    """ "From 2 to 6pm": the start without am/pm in the half of the day of the end."""
    first = _RANGE_JOIN.split(words, maxsplit=1)[0]
    if _MERIDIEM.search(first) or start >= 12 * 60 or end < 12 * 60:
        return start
    return start + 12 * 60 if start + 12 * 60 < end else start


def _honest(time: Time, words: str) -> bool:
    """The parser matches the part-of-day words loosely ("light" for "night"): a part is
    kept only when its word is in the text."""
    if not time.POD or time.hasTime:
        return True
    word = re.sub(r"^(very)?(early|late)", "", time.POD) or time.POD
    lowered = words.lower()
    return word in lowered or (word == "morning" and "early" in lowered) or "tonight" in lowered


def _after_midnight(minute: int | None) -> int | None:
    """12 am is midnight (the parser reads "12 a.m." as noon)."""
    return minute - 12 * 60 if minute is not None and 12 * 60 <= minute < 13 * 60 else minute


def _small_hours(minute: int | None) -> int | None:
    """Four or half past twelve "at night" is before dawn (the parser reads it as 16:00
    or 12:30)."""
    return minute - 12 * 60 if minute is not None and 12 * 60 <= minute < 18 * 60 else minute


def _minute(time: Time) -> int | None:
    if not time.hasTime or time.hour is None:
        return None
    return (time.hour * 60 + (time.minute or 0)) % DAY


def _day(ends: list[Time], production: tuple[object, ...], today: date) -> date | None:
    """The day named, when a rule for named days made it (not a bare number read as a
    day of the month)."""
    if not _NAMED_DAY_RULES.intersection(str(p) for p in production):
        return None
    for time in ends:
        if time.year and time.month and time.day:
            return date(time.year, time.month, time.day)
        if time.DOW is not None:
            return today + timedelta(days=(time.DOW - today.weekday()) % 7 or 7)
    return None


def _named_parts(text: str) -> list[When]:
    """Parts of the day the parser has no name for ("at dawn", "by sunset")."""
    found = []
    for match in re.finditer(r"[\w']+", text):
        part = _MORE_PARTS.get(match.group().lower())
        if part:
            start, end = PARTS[part]
            found.append(When(match.group(), match.start(), start, end, part))
    return found
