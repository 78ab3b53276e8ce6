"""The named facts whose diffusion an evaluation measures: the paper's two (Isabella's
party, Sam's candidacy) or any clause a user names ("the library closes early on Friday").

Each fact has a question ("Did you hear that <fact>?"), the resident it starts from when
that is known, and a rule for whether one sentence of a memory states it: the paper's two
keep the emergence measures' rules (`about_party`, `about_candidacy`); a named fact is
stated by the rule an offline resident answers its question by (`key_words.answers`), so
what a memory holds and what the resident says of it agree.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial

from agents.offline.key_words import answers, asked_about, key_words

from .emergence import CANDIDATE, PARTY_HOST, about_candidacy, about_party

MIN_KEY_WORDS = 2
FACT_MAX = 200


@dataclass(frozen=True)
class Fact:
    text: str  # a clause: "Sam Moore is running for mayor"
    origin: str | None  # the resident it starts from, when known
    about: Callable[[str], bool] = field(compare=False)  # whether one sentence states it

    @property
    def question(self) -> str:
        return f"Did you hear that {self.text}?"


PARTY = Fact(
    "Isabella Rodriguez is throwing a Valentine's Day party at Hobbs Cafe", PARTY_HOST, about_party
)
CANDIDACY = Fact("Sam Moore is running for mayor", CANDIDATE, about_candidacy)
DEFAULT_FACTS = (PARTY, CANDIDACY)


class FactError(ValueError):
    """A named fact the rules cannot check; the message says why."""


def fact_parse(text: str) -> Fact:
    """The fact a user named: one of the paper's two when it says the same, else checked by
    its key words. FactError for one too short to check."""
    clause = text.strip().rstrip(".?!")
    for known in DEFAULT_FACTS:
        if clause.lower() == known.text.lower():
            return known
    key = key_words(clause)
    if len(key) < MIN_KEY_WORDS or len(clause) > FACT_MAX:
        raise FactError(
            f"fact {text!r}: name a fact as a clause of at most {FACT_MAX} characters with "
            f"at least {MIN_KEY_WORDS} words of four letters or more, e.g. "
            f"{CANDIDACY.text!r}"
        )
    return Fact(clause, None, partial(answers, asked=asked_about(f"Did you hear that {clause}?")))


def facts_of(texts: Sequence[str]) -> list[Fact]:
    """The evaluation's facts: those named, or the paper's two."""
    return [fact_parse(t) for t in texts] if texts else list(DEFAULT_FACTS)
