"""The reflection prompt tasks (`reflection_questions`, `reflection_insights`) and their
offline policies.

The offline policies are rule-based stand-ins, not a model. Questions ask about the
people (capitalised names other than the agent's own) and subjects (content words) that
recur in the most statements. Insights are what a person would state from the retrieved
statements about the people the recurring terms are about (`offline_insights`), each
citing the statements it rests on. The importance of an insight is the `importance`
task's offline rating of its text.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from agents.offline.insights import facts_of, insights_about, subject_of
from agents.offline.judgments import importance
from llm.tasks import Inputs, PromptTask, task_register

QUESTIONS_PER_REFLECTION = 3
INSIGHTS_PER_QUESTION = 5
CITATIONS_PER_INSIGHT = 5


class Questions(BaseModel):
    """The focal points of a reflection."""

    model_config = ConfigDict(extra="forbid")

    questions: list[str] = Field(
        min_length=QUESTIONS_PER_REFLECTION,
        max_length=QUESTIONS_PER_REFLECTION,
        description="the 3 most salient high-level questions about the statements",
    )


class Insight(BaseModel):
    model_config = ConfigDict(extra="forbid")

    insight: str = Field(min_length=1, max_length=500)
    because: list[int] = Field(description="numbers of the statements the insight rests on")
    importance: int = Field(ge=1, le=10, description="poignancy: 1 mundane .. 10 poignant")


class Insights(BaseModel):
    """What an agent infers from the statements retrieved for one question."""

    model_config = ConfigDict(extra="forbid")

    insights: list[Insight] = Field(min_length=1, max_length=INSIGHTS_PER_QUESTION)


def numbered(statements: Sequence[str]) -> list[str]:
    """Statements as the prompts show them: "1. ...", "2. ..."."""
    return [f"{n}. {text}" for n, text in enumerate(statements, start=1)]


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
# Last words of names that are places, not people ("Hobbs Cafe", "Oak Hill College").
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
    Klaus Mueller" is Klaus Mueller) and never the agent's own; it is a person unless its
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


_PERSON_QUESTIONS = (
    "What is {agent}'s relationship with {term}?",
    "What does {agent} know about {term}?",
    "How does {agent} feel about {term}?",
)
_SUBJECT_QUESTIONS = (
    "What does {agent} think about {term}?",
    "What role does {term} play in {agent}'s life?",
    "Why does {term} keep coming up for {agent}?",
)
_GENERIC_QUESTIONS = (
    "What is {agent} spending the days on?",
    "Who does {agent} see most often?",
    "How has {agent} been feeling lately?",
)


def questions_offline(inputs: Inputs, rng: random.Random) -> Questions:
    """Questions about the three terms that recur in the most statements."""
    agent = str(inputs["agent_name"])
    lines = statement_lines(inputs["statements"])
    questions = []
    for term in recurring_terms(lines, agent)[:QUESTIONS_PER_REFLECTION]:
        templates = _PERSON_QUESTIONS if term.person else _SUBJECT_QUESTIONS
        questions.append(rng.choice(templates).format(agent=agent, term=term.text))
    for generic in _GENERIC_QUESTIONS[: QUESTIONS_PER_REFLECTION - len(questions)]:
        questions.append(generic.format(agent=agent))
    return Questions(questions=questions)


def insights_offline(inputs: Inputs, rng: random.Random) -> Insights:
    """Up to five insights over the statements, each citing the ones it rests on: about
    the people the recurring terms name or are about (the question's own first), then the
    agent itself (`offline_insights`)."""
    agent = str(inputs["agent_name"])
    question = str(inputs["question"]).lower()
    lines = statement_lines(inputs["statements"])
    terms = recurring_terms(lines, agent)
    terms.sort(key=lambda t: t.text.lower() not in question)  # stable
    facts = facts_of(lines, agent)
    subjects: list[str] = []
    for term in terms:
        subject = term.text if term.person else subject_of(term.text, facts)
        if subject and subject not in subjects:
            subjects.append(subject)
    subjects += [] if agent in subjects else [agent]
    # A statement the memories already hold is not a new insight.
    known = {text.lower().rstrip(".") for _, text in lines}
    insights: list[Insight] = []
    for subject in subjects:
        for text, because in insights_about(subject, lines, facts, agent):
            text = text[0].upper() + text[1:].rstrip(".")
            if len(insights) == INSIGHTS_PER_QUESTION or text.lower() in known:
                continue
            known.add(text.lower())
            insights.append(
                Insight(
                    insight=text[:500],
                    because=because[:CITATIONS_PER_INSIGHT],
                    importance=importance(text),
                )
            )
    if not insights:
        recent = [number for number, _ in lines][-CITATIONS_PER_INSIGHT:]
        insights.append(
            Insight(insight=f"{agent} has had a quiet stretch", because=recent, importance=2)
        )
    return Insights(insights=insights)


QUESTIONS = task_register(
    PromptTask(
        name="reflection_questions",
        template="reflection_questions.txt",
        output=Questions,
        offline=questions_offline,
        description="the 3 most salient high-level questions about the 100 latest memories",
    )
)

INSIGHTS = task_register(
    PromptTask(
        name="reflection_insights",
        template="reflection_insights.txt",
        output=Insights,
        offline=insights_offline,
        description="5 insights citing the numbered statements they rest on",
    )
)
