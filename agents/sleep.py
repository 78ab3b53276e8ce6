"""Sleep: the one home of the words that say a plan item or an action is sleep."""

from __future__ import annotations

SLEEP_WORDS = ("sleep",)
BEDTIME_WORDS = ("sleep", "bed")


def is_sleeping(text: str) -> bool:
    """An action or hour block of sleep: the resident perceives nothing new and is not
    free to talk, and a sleep block is spent in bed."""
    lowered = text.lower()
    return any(word in lowered for word in SLEEP_WORDS)


def is_bedtime(text: str) -> bool:
    """A day-plan item of sleep or going to bed, which the offline schedule keeps whole."""
    lowered = text.lower()
    return any(word in lowered for word in BEDTIME_WORDS)
