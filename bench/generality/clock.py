"""Clock times in words, many ways: "5", "half past six", "4:30 am", "22:00", "ten at
night", "noon". Minutes are after midnight; every phrasing names one time of day."""

from __future__ import annotations

import random

NUMBERS = (
    "twelve", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven",
)  # fmt: skip


def part_of_day(minutes: int) -> str:
    hour = minutes // 60 % 24
    if hour < 5:
        return "at night"
    if hour < 12:
        return "in the morning"
    if hour < 17:
        return "in the afternoon"
    if hour < 21:
        return "in the evening"
    return "at night"


def _twelve(minutes: int) -> tuple[int, int, str]:
    hour, minute = divmod(minutes % (24 * 60), 60)
    return hour % 12 or 12, minute, "am" if hour < 12 else "pm"


def phrasings(minutes: int, *, bare: bool = False) -> list[str]:
    """Every way this module says the time; with `bare`, also without am or pm ("up at 5"),
    for a sentence whose sense tells which."""
    hour12, minute, half = _twelve(minutes)
    hour24 = minutes // 60 % 24
    word = NUMBERS[hour12 % 12]
    said = [
        f"{hour12}:{minute:02d} {half}",
        f"{hour12}:{minute:02d}{half}",
        f"{hour24:02d}:{minute:02d}",
        f"{hour24}.{minute:02d}",
    ]
    if minute == 0:
        said += [
            f"{hour12} {half}",
            f"{hour12}{half}",
            f"{hour12} {'a.m.' if half == 'am' else 'p.m.'}",
        ]
        if hour24 != 12:
            said += [f"{word} {part_of_day(minutes)}", f"{word} o'clock {part_of_day(minutes)}"]
        if bare:
            said += [f"{hour12}", f"{word}"]
        if hour24 == 12:
            said += ["noon", "midday", "12 noon"]
        if hour24 == 0:
            said += ["midnight"]
    elif minute == 30:
        said += [f"half past {word} {part_of_day(minutes)}" if hour24 != 12 else "half past twelve"]
        if bare:
            said += [f"half past {word}", f"{word} thirty"]
    elif minute == 15:
        said += [f"quarter past {word} {part_of_day(minutes)}"]
    elif minute == 45:
        after = NUMBERS[(hour12 + 1) % 12]
        said += [f"quarter to {after} {part_of_day(minutes + 15)}"]
    return said


def said(minutes: int, rng: random.Random, *, bare: bool = False) -> str:
    return rng.choice(phrasings(minutes, bare=bare)).removesuffix(".")


def hhmm(minutes: int) -> str:
    return f"{minutes // 60 % 24:02d}:{minutes % 60:02d}"
