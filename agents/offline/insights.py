"""The offline policy of `reflection_insights`: insights a person would state, built from
the statements they cite (a rule, not a model).

Each insight is about one of the terms that recur in the statements (the question's own
first; `prompts.recurring_terms`) and says something the statements only say apart:

- about someone (a person, or whoever the statements about a subject are mostly about):
  what they are up to, two of their plans or doings joined ("Sam Moore is organising a
  quiz night at the Copper Lantern, and is inviting everyone he meets"), the most
  important first (the offline importance rule), never sleep, meals, chores or what it
  merely saw them doing;
- where the resident learned it: "Maria Lopez told Sam Moore that ...";
- how the resident stands with someone it has talked with more than once ("Sam Moore and
  Maria Lopez have talked 3 times lately and are getting to know each other");
- what someone means to it, from a statement that names them both ("Maria Lopez
  matters to Sam Moore: Maria Lopez and Sam Moore are dormmates");
- what it keeps seeing someone do, twice or more and nobody told it ("Sam Moore often
  sees Maria Lopez working at the bakery");
- what the items of its day's plan mostly are ("Sam Moore will spend much of the day
  working at the bakery").

Never word statistics: no insight says which words go together. Statements that are
records (a conversation, a day's plan or an item of it, an interview turn) are not facts
to restate;
the resident's own first-person thoughts, and the seed memories that address it ("You
and Maria Lopez are dormmates"), are read as about itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from agents.offline.judgments import importances
from agents.offline.memo import fact_and_source
from agents.offline.news import third_person
from agents.offline.talk import first_person

# Importances (by meaning: judgments.importances) from which a doing is news, not a sighting,
# and up to which it is routine (sleep, meals, chores), not what someone is up to.
NEWSWORTHY = 6
ROUTINE = 2
_PRED_MAX = 180
_SUBJECT = re.compile(r"^((?:[A-Z][\w'-]*)(?: [A-Z][\w'-]*)+) (?=[a-z])")
_SEEN = re.compile(r"^is (\w+ing\b.*)")


@dataclass(frozen=True)
class Fact:
    number: int
    subject: str  # the full name it opens with
    predicate: str  # what follows the name: "is planning a party at ..."
    source: str  # who told it, when it was heard
    rating: int

    @property
    def text(self) -> str:
        return f"{self.subject} {self.predicate}"

    @property
    def seen(self) -> bool:
        """An everyday doing it saw ("is getting food"), not news nor a plan."""
        return (
            not self.source and self.rating < NEWSWORTHY and _SEEN.match(self.predicate) is not None
        )


def _record(text: str) -> bool:
    return (
        "had a conversation" in text
        or " said: " in text
        or (text.startswith("This is ") and "'s plan for " in text)
        or " plans to be " in text  # an item of the day's plan
    )


def _own(text: str, agent: str) -> str:
    """A statement in the agent's own voice ("I ...") or addressed to it ("You and Maria
    Lopez are dormmates", the seed memories) told of it by name, less a lead-in ("This is
    very important -- ")."""
    text = re.sub(r"^[^.]{0,40}? -- ", "", text)
    if re.search(r"\b(?:[Yy]ou|[Yy]our)\b|^I\b", text):
        return third_person(first_person(text, agent), agent)
    return text


def statements_of(lines: Sequence[tuple[int, str]], agent: str) -> list[tuple[int, str, str]]:
    """(number, text by name, who told it) of the statements that are no records."""
    return [
        (number, _own(fact, agent), source)
        for number, line in lines
        if not _record(line)
        for fact, source in [fact_and_source(line)]
    ]


def facts_of(lines: Sequence[tuple[int, str]], agent: str) -> list[Fact]:
    """The statements that say what someone is, does or plans, most important first."""
    found = []
    for number, fact, source in statements_of(lines, agent):
        opened = _SUBJECT.match(fact)
        if opened is not None and len(fact) - opened.end() <= _PRED_MAX:
            found.append((number, opened, fact, source))
    # Rated by meaning (judgments), no draw: same seed, same log.
    ratings = importances([fact for _, _, fact, _ in found])
    facts = [
        Fact(number, opened[1], fact[opened.end() :], source, rating)
        for (number, opened, fact, source), rating in zip(found, ratings, strict=True)
    ]
    return sorted(facts, key=lambda f: -f.rating)  # stable: earlier first on ties


def _apart(one: str, other: str) -> bool:
    """Whether two predicates say different things (not one inside the other, not mostly
    the same words)."""
    a, b = set(one.lower().split()), set(other.lower().split())
    return one not in other and other not in one and len(a & b) < 0.6 * min(len(a), len(b))


def _up_to(person: str, facts: list[Fact]) -> tuple[str, list[int]] | None:
    """What `person` is up to: its most important plan or doing, and another joined."""
    about = [f for f in facts if f.subject == person and f.rating > ROUTINE and not f.seen]
    if not about:
        return None
    first = about[0]
    second = next((f for f in about[1:] if _apart(first.predicate, f.predicate)), None)
    if second is None or re.search(r", and | matters to ", first.predicate + second.predicate):
        return None  # not an insight of insights
    return f"{person} {first.predicate}, and {second.predicate}", [first.number, second.number]


def _heard(person: str, facts: list[Fact], agent: str) -> tuple[str, list[int]] | None:
    told = next((f for f in facts if f.subject == person and f.source and f.source != person), None)
    if told is None:
        return None
    return f"{told.source} told {agent} that {told.text}", [told.number]


def _talks(
    person: str, lines: Sequence[tuple[int, str]], agent: str
) -> tuple[str, list[int]] | None:
    talked = [
        n
        for n, line in lines
        if re.match(r".+? had a conversation\b", line)
        and person in line.split(" had a conversation")[0]
        and agent in line.split(" had a conversation")[0]
    ]
    if len(talked) < 2 or person == agent:
        return None
    return (
        f"{agent} and {person} have talked {len(talked)} times lately and are getting to know "
        "each other",
        talked,
    )


def _seen(person: str, facts: list[Fact], agent: str) -> tuple[str, list[int]] | None:
    seen = [f for f in facts if f.subject == person and f.seen]
    if len(seen) < 2 or person == agent:
        return None
    doing = _SEEN.match(seen[0].predicate)
    assert doing is not None
    return f"{agent} often sees {person} {doing[1]}", [f.number for f in seen]


def _bond(
    person: str, lines: Sequence[tuple[int, str]], facts: list[Fact], agent: str
) -> tuple[str, list[int]] | None:
    """How the agent stands with `person` (someone a statement tells of), from the first
    statement that names them both."""
    if person == agent or not any(f.subject == person for f in facts):
        return None
    seen = {f.number for f in facts if f.seen}
    both = [
        (n, text)
        for n, text, _ in statements_of(lines, agent)
        if person in text
        and agent in text
        and n not in seen  # "X is chatting with Y" says little of how they stand
        and len(text) <= _PRED_MAX
        and not re.search(r" matters to |, and ", text)  # an insight already
    ]
    if not both:
        return None
    return f"{person} matters to {agent}: {both[0][1]}", [both[0][0]]


_PLANNED = re.compile(r"^(.+?) plans to be (.+?) from \d\d:\d\d")


def _day(person: str, lines: Sequence[tuple[int, str]]) -> tuple[str, list[int]] | None:
    """What the items of someone's plan mostly are: "X will spend much of the day ..."."""
    items: dict[str, list[int]] = {}
    for number, line in lines:
        planned = _PLANNED.match(line)
        if planned and planned[1] == person and "sleep" not in planned[2]:
            items.setdefault(planned[2], []).append(number)
    if not items:
        return None
    doing = max(items, key=lambda d: len(items[d]))  # the first of the most
    if len(items[doing]) < 2:
        return None
    return f"{person} will spend much of the day {doing}", items[doing]


def insights_about(
    subject: str, lines: Sequence[tuple[int, str]], facts: list[Fact], agent: str
) -> Iterator[tuple[str, list[int]]]:
    """The insights about `subject` the statements support, best first."""
    for found in (
        _up_to(subject, facts),
        _heard(subject, facts, agent),
        _bond(subject, lines, facts, agent),
        _talks(subject, lines, agent),
        _seen(subject, facts, agent),
        _day(subject, lines),
    ):
        if found is not None:
            yield found


def subject_of(term: str, facts: list[Fact]) -> str:
    """Whom the statements that mention a subject (a word) are mostly about."""
    counts: dict[str, int] = {}
    for fact in facts:
        if re.search(rf"\b{re.escape(term)}\b", fact.predicate, re.IGNORECASE):
            counts[fact.subject] = counts.get(fact.subject, 0) + 1
    return max(counts, key=lambda s: counts[s]) if counts else ""
