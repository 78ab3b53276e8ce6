"""Hallucination: an answer that claims to know a person or a fact no memory stands behind."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from evaluations.emergence import holds
from memories.models import Memory
from world.models import Agent

# A denial in the first sentence wins over a "yes": "Yes... well, no, I don't know her" is
# no claim.
_DENIAL = re.compile(
    r"\b(?:no|nope|not sure|don't know|do not know|never (?:heard|met)|haven't (?:heard|met)"
    r"|don't remember|do not remember|not familiar)\b",
    re.IGNORECASE,
)
_CLAIM = re.compile(
    r"^\W*(?:yes|yeah|of course|sure|certainly)\b|\bI(?: know| have heard|'ve heard| heard| met)\b",
    re.IGNORECASE,
)


# Where the answer's first sentence ends ("Yes... well, no" is one sentence).
_FIRST_SENTENCE_END = re.compile(r"(?<=[^.][.!?])\s+(?=[A-Z])")


def claims_to_know(answer: str) -> bool:
    """Whether an answer says yes to "Do you know ...?" (a rule, read by the tests): its
    first sentence, where it takes its stand, has no denial, and it claims; a "no" in what
    it then tells ("Yes. Ryan told me he wants no part in it") denies nothing."""
    stand = _FIRST_SENTENCE_END.split(answer.strip(), maxsplit=1)[0]
    return _DENIAL.search(stand) is None and _CLAIM.search(answer) is not None


@dataclass(frozen=True)
class Claim:
    agent: str
    about: str
    claimed: bool
    backed: bool

    @property
    def hallucinated(self) -> bool:
        return self.claimed and not self.backed


def claim_of_person(*, agent: Agent, person: str, answer: str) -> Claim:
    """A claim to know `person`, backed when one of the agent's memories names them."""
    backed = Memory.objects.filter(agent=agent, description__contains=person).exists()
    return Claim(agent.name, person, claims_to_know(answer), backed)


def claim_of_fact(*, agent: Agent, fact: str, about: Callable[[str], bool], answer: str) -> Claim:
    """A claim to know a fact, backed when one sentence of one memory states it."""
    descriptions = Memory.objects.filter(agent=agent).values_list("description", flat=True)
    backed = any(holds(d, about) for d in descriptions.iterator())
    return Claim(agent.name, fact, claims_to_know(answer), backed)


def agreement(
    *,
    residents: int,
    holders: list[str],
    knows: list[str],
    denied: list[str],
    claimed: list[str],
    source: str,
) -> dict[str, Any]:
    """How far what the residents say agrees with what their memories hold: holders by
    memory, by interview, holders who deny it, non-holders who claim it."""
    agreeing = residents - len(denied) - len(claimed)
    return {
        "holders_by_memory": len(holders),
        "holders_by_interview": len(knows) + len(claimed),
        "holders_who_deny_it": denied,
        "non_holders_who_claim_it": claimed,
        "agreeing": f"{agreeing} of {residents}",
        "percent": round(100 * agreeing / residents, 1) if residents else 100.0,
        "source_denies_it": source in denied,
    }
