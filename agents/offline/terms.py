"""The terms that recur in a reflection's numbered statements, for the stand-in's
reflection questions and insights: names (runs of capitalised words, less leading function
words, never the agent's own; a person unless the last word is a kind of place) and
content words, ranked by the number of statements that mention them. Word statistics of
the statements given, no list of events."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

_NUMBERED = re.compile(r"\s*(\d+)\.\s*(.*)")
_NAME = re.compile(r"\b[A-Z][a-z]+(?: [A-Z][a-z]+)+\b")
_WORD = re.compile(r"\b[a-z]+\b")
# Function words, generic verbs, and the words of the offline insights themselves (so
# that reflections on reflections look past them to what they are about).
_STOPWORD_TEXT = """
about above across after again against also around associates away back been before being
below between both busy came come comes coming connection could currently daily days does
doing done down during each else even every feel feels from gets getting goes going have
having here idle into just keep keeps know knows lately later life like likes made make
makes making many matters more most much must near next often once only onto other others
over part place presence really recurring regular regularly running runs same seeing seen
sees share shares should some someone something soon still such take takes taking tends than
that their them then there these they thing things think thinks this those through time
today together tomorrow toward under until upon usually very want wants well were what when
where which while with within without would yesterday your
"""
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())
_LEADING = frozenset(
    [
        "a",
        "an",
        "and",
        "at",
        "but",
        "by",
        "for",
        "he",
        "her",
        "his",
        "in",
        "it",
        "of",
        "on",
        "she",
        "the",
        "to",
    ]
)
# Last words of names that are places, not people ("Gull Quay Cafe", "Skerrow College").
_PLACES = frozenset(
    [
        "apartment",
        "apartments",
        "bar",
        "cafe",
        "college",
        "company",
        "dorm",
        "garden",
        "home",
        "house",
        "library",
        "market",
        "office",
        "park",
        "pharmacy",
        "pub",
        "room",
        "school",
        "shop",
        "store",
        "street",
        "supply",
        "town",
        "ville",
    ]
)


@dataclass(frozen=True)
class Term:
    text: str
    person: bool
    statements: tuple[int, ...]  # the numbers of the statements that mention it


def statement_lines(value: object) -> list[tuple[int, str]]:
    """(number, text) of numbered statements given as a list of lines or one text."""
    lines = value if isinstance(value, (list, tuple)) else str(value).splitlines()
    found = []
    for line in lines:
        match = _NUMBERED.match(str(line))
        if match:
            found.append((int(match.group(1)), match.group(2).strip()))
    return found


def _terms_of(text: str, agent: str) -> dict[str, bool]:
    """The names (True) and content words (False) of a statement, in order of appearance.

    A name is a run of two or more capitalised words, less leading function words ("For
    Tam Liddel" is Tam Liddel) and never the agent's own; it is a person unless its
    last word names a kind of place. A content word is a word written in lower case,
    four letters or more, that is not a stopword.
    """
    own = agent.lower()
    terms: dict[str, bool] = {}
    for match in _NAME.findall(text):
        words = match.split()
        while words and words[0].lower() in _STOPWORDS | _LEADING:
            words.pop(0)
        name = " ".join(words)
        if len(words) >= 2 and own not in name.lower() and name.lower() not in own:
            terms.setdefault(name, words[-1].lower() not in _PLACES)
    for word in _WORD.findall(_NAME.sub(" ", text)):
        if len(word) >= 4 and word not in _STOPWORDS and word not in own.split():
            terms.setdefault(word, False)
    return terms


def recurring_terms(lines: Sequence[tuple[int, str]], agent: str) -> list[Term]:
    """Terms by the number of statements that mention them (most first); people before
    subjects and earlier before later on ties."""
    mentions: dict[str, list[int]] = {}
    person: dict[str, bool] = {}
    for number, text in lines:
        for term, is_person in _terms_of(text, agent).items():
            mentions.setdefault(term, []).append(number)
            person[term] = is_person
    order = {term: i for i, term in enumerate(mentions)}
    ranked = sorted(mentions, key=lambda t: (-len(mentions[t]), not person[t], order[t]))
    return [Term(t, person[t], tuple(mentions[t])) for t in ranked]
