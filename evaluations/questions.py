"""The paper's interview: 25 questions per resident in five categories, written from its
identity and the town (Park et al. 2023, section 6.1 and appendix B).

The paper wrote the questions per agent by hand; here a rule writes them: the people a
question names are the residents the agent's identity mentions (its "learned" and
"currently" lines name family, neighbours and friends), then the others in the order of
their names after its own, so every resident gets the same shape of interview.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from world.models import Agent

CATEGORIES = ("self_knowledge", "memory", "plans", "reactions", "reflections")
PER_CATEGORY = 5
QUESTIONS = len(CATEGORIES) * PER_CATEGORY  # 25


@dataclass(frozen=True)
class Question:
    number: int  # 1..25, in the paper's order
    category: str
    text: str


def acquaintances(*, agent: Agent, residents: Sequence[str]) -> list[str]:
    """The other residents, those the agent's identity names first (in the order named)."""
    identity = " ".join((agent.innate, agent.learned, agent.currently, agent.lifestyle))
    others = [name for name in sorted(residents) if name != agent.name]
    named = sorted((n for n in others if n in identity), key=identity.index)
    after = [n for n in others if n > agent.name] + [n for n in others if n < agent.name]
    return named + [n for n in after if n not in named]


# The memory category's two questions on the town's news when the base names none (a
# base's `measures.questions`: the paper asked of the election and the party).
NEWS_QUESTIONS = ("What news have you heard lately?", "Is anything special coming up in town?")


def interview_questions(
    *, agent: Agent, residents: Sequence[str], news: Sequence[str] = ()
) -> list[Question]:
    """The 25 questions for `agent` among `residents` (its own name may be in it), two of
    them on the town's news (`news`, else NEWS_QUESTIONS)."""
    first, second = [*news, *NEWS_QUESTIONS][:2]
    people = acquaintances(agent=agent, residents=residents) or ["a neighbour"]

    def person(i: int) -> str:
        return people[i % len(people)]

    friend = person(0)
    texts = {
        "self_knowledge": [
            "Give an introduction of yourself.",
            "What's your occupation?",
            "What is your interest?",
            "Who do you live with?",
            "Describe your typical weekday schedule in broad strokes.",
        ],
        "memory": [
            f"Who is {person(0)}?",
            f"Who is {person(1)}?",
            first,
            second,
            f"Who is {person(2)}?",
        ],
        "plans": [
            "What will you be doing at 10 am tomorrow?",
            "What will you be doing at 6 pm today?",
            "What will you be doing at 2 pm today?",
            "What will you have just finished doing at 1 pm today?",
            "What will you have just finished doing at 12 pm today?",
        ],
        "reactions": [
            "Your breakfast is burning! What would you do?",
            "The bathroom is occupied. What would you do?",
            "You need to cook dinner but your refrigerator is empty. What would you do?",
            "You see your friend walking by the street. What would you do or say to your friend?",
            "You see fire on the street. What would you do?",
        ],
        "reflections": [
            "What inspires you in life the most right now, and why?",
            f"If you had to guess given what you know about {friend}, what book do you "
            f"think {friend} will like and why?",
            f"If you had to get something {friend} likes for their birthday, what would "
            "you get them?",
            f"What would you say to {friend} to compliment them?",
            "If you could spend time with one person you met recently, who would it be and why?",
        ],
    }
    return [
        Question(c * PER_CATEGORY + i + 1, category, text)
        for c, category in enumerate(CATEGORIES)
        for i, text in enumerate(texts[category])
    ]


# The relationship interview (section 7.1.2): "Do you know <name>?", one per ordered pair,
# at the start (from the seed memories) and now; numbered apart from the 25 so the
# interviews share InterviewAnswer's one-per-unit key: the other's index in the residents
# sorted by name, plus the moment's base.
RELATIONSHIP_START, RELATIONSHIP_NOW = "relationship_start", "relationship_now"
RELATIONSHIP_BASE = {RELATIONSHIP_START: 1000, RELATIONSHIP_NOW: 2000}


def relationship_question(name: str) -> str:
    return f"Do you know {name}?"


# The diffusion interview (section 7.1.1): "Did you hear that <fact>?", once per resident
# and named fact (`evaluations.named`), numbered from FACT_BASE by the fact's index.
FACT = "fact"
FACT_BASE = 3000
