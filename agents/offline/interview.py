"""The offline policy of the `interview` task: a resident answers from what retrieval
returned for the question, whatever its phrasing (a rule, not a model).

The memories that answer the question are those that hold enough of its key words
(`key_words.relevance`: content words by their stems, not function words, with a
threshold). The resident states the best one or two in the first person, saying who told
it where its memory says so ("Maria Lopez told me that ..."); a conversation is told as
having talked, never quoted. With none that answers, it says it has not heard of it, so it
never denies what its memory holds nor claims what it does not. A question about the
resident itself ("What are you doing today?", "Give an introduction of yourself") that
no memory answers by its words is answered with the memories retrieved first, as they
are the best the resident has. "Do you know <name>?" is a yes when a memory names them.
"""

from __future__ import annotations

import re

from agents.offline.key_words import Asked, asked_about, relevance
from agents.offline.news import fact_and_source, mid_sentence, verb_after_name
from agents.offline.policy import lines_of
from agents.offline.talk import first_person
from llm.tasks import Inputs

_PERSON = re.compile(r"^\s*Do you know ((?:[A-Z][\w'-]*)(?: [A-Z][\w'-]*)*)\s*\?\s*$")
_YES_NO = re.compile(
    r"^\W*(?:do|does|did|have|has|had|is|are|was|were|will|would|can|could|any|anything)\b",
    re.IGNORECASE,
)
# The question is about the resident itself: "your", "yourself", or "you" doing something
# other than knowing or hearing of something.
_ABOUT_ITSELF = re.compile(
    r"\b(?:your|yourself)\b|\byou\b(?! (?:know|hear|heard|remember|recall|tell|say|think)\b)",
    re.IGNORECASE,
)
_CONTRACTED = {"ve": "has", "ll": "will", "d": "would"}
_QUOTED = re.compile(r'(?:^|[.;] )([A-Z][\w\'-]*(?: [A-Z][\w\'-]*)*) said: "(.*?)"(?=;|$)')
ANSWERS = 2  # the memories an answer states


_OPENER = re.compile(r"^(?:I'm well, thanks! )?(?:By the way, |Oh, and )?(?:[A-Z]\w+, )?")


def _reported(line: str, teller: str, name: str) -> str:
    """A line someone said to `name` as `name` tells it, after the teller's name: "who told
    me that I am invited to her garden supper", "who is writing a research paper"."""
    first = teller.split()[0]
    text = _OPENER.sub("", line)
    text = re.sub(r"\bI(?:'m| am)\b", f"{first} is", text)
    text = re.sub(r"\bI\s+([a-z]+)\b", lambda m: f"{first} {verb_after_name(m[1])}", text)
    text = re.sub(r"\bI'(ve|ll|d)\b", lambda m: f"{first} {_CONTRACTED[m[1]]}", text)
    text = re.sub(r"\b[Mm]y\b", f"{first}'s", text)
    text = re.sub(r"\b(?:me|myself)\b", first, text)
    text = re.sub(rf"^{first} (?:knows|thinks|believes|heard)(?: that)? ", "", text)
    text = mid_sentence(first_person(text, name))
    about_itself = re.match(rf"{first} (?=[a-z])", text)
    return f"who {text[about_itself.end() :]}" if about_itself else f"who told me that {text}"


def as_fact(memory: str, name: str, asked: Asked | None = None) -> str:
    """A memory as a first-person sentence: heard news says who told it; a conversation is
    told as having talked, with what the other said that bears most on the question as
    reported speech, never quoted. "" for what is no answer in its own words (someone
    else's talk, a quoted interview turn)."""
    talk = re.match(r"(.+?) had a conversation\b", memory)
    if talk:
        others = [p for p in re.split(r",\s*|\s+and\s+", talk[1]) if p and p != name]
        if name not in talk[1] or not others:
            return ""  # someone else's talk, told second hand
        fact = f"I talked with {' and '.join(others)}"
        lines = [(t, line) for t, line in _QUOTED.findall(memory) if len(line) > 10]
        if asked is not None:  # the line that answers the question first (a stable sort)
            lines.sort(key=lambda told: (-relevance(asked, told[1]), told[0] == name))
        else:
            lines = [(t, line) for t, line in lines if t != name]
        if lines and lines[0][0] == name:  # what it said itself: "and I told them that ..."
            said = mid_sentence(_OPENER.sub("", lines[0][1])).rstrip(".!")
            return f"{fact}, and I told them that {said}"
        if lines:
            teller, line = lines[0]
            return f"{fact}, {_reported(line, teller, name).rstrip('.!')}"
        return fact
    if " said: " in memory:
        return ""  # a quoted line (an interview turn): not an answer in its own words
    fact, source = fact_and_source(memory)
    if source:
        return f"{source} told me that {mid_sentence(first_person(fact, name))}"
    return first_person(memory, name)


_PLAN_HEADER = re.compile(r"^This is [^:]+'s plan for [^:]*:\s*")


def _content(memory: str) -> str:
    """What a memory says, for its relevance: news without who told it, a day's plan
    without its header ("This is X's plan for ...": the word "plan" is no plan it tells of)."""
    return _PLAN_HEADER.sub("", fact_and_source(memory)[0])


def _sentences(facts: list[str]) -> str:
    return " ".join(f"{fact[0].upper()}{fact[1:].rstrip('.!')}." for fact in facts)


def _stated(memories: list[str], name: str, asked: Asked | None) -> list[str]:
    facts: list[str] = []
    for memory in memories:
        fact = as_fact(memory, name, asked)
        if len(fact) > 10 and fact not in facts:
            facts.append(fact)
        if len(facts) == ANSWERS:
            break
    return facts


def interview_answer(inputs: Inputs) -> str:
    """The answer to `question` from the retrieved `memories` (best first): see the module's
    docstring."""
    name = str(inputs["agent_name"])
    memories = [re.sub(r"^\d+\.\s*", "", m).strip() for m in lines_of(inputs["memories"])]
    memories = [m for m in memories if m and m != "none"]
    question = str(inputs.get("question", ""))
    person = _PERSON.match(question)
    if person:
        known = [m for m in memories if person[1] in m]
        if not known:
            return f"No, I don't think I know {person[1]}."
        facts = _stated(known, name, None)
        return f"Yes. {_sentences(facts)}" if facts else f"Yes, I know {person[1]}."
    asked = asked_about(question, name)
    scored = sorted(
        ((relevance(asked, _content(m)), i) for i, m in enumerate(memories)),
        key=lambda s: (-s[0], s[1]),
    )
    facts = _stated([memories[i] for score, i in scored if score], name, asked)
    yes_no = _YES_NO.match(question) is not None
    if facts:
        return f"Yes. {_sentences(facts)}" if yes_no else _sentences(facts)
    if not asked.size or _ABOUT_ITSELF.search(question):
        facts = _stated(memories, name, None)  # the best it has about itself
        return _sentences(facts) if facts else "I'm not sure; I don't remember anything about that."
    return "No, I haven't heard anything about that." if yes_no else "I haven't heard of that."
