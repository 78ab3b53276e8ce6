"""The offline policy of the `interview` task: a resident answers from what retrieval
returned for the question, whatever its phrasing (a rule, not a model).

As the paper does, the answer comes from the memories retrieved with the question as the
query. A memory in other words than the question's answers it by its relevance: how far
its cosine to the question stands out (`relevance.fits`). One that shares the question's
words answers only when it states what the question asks (`key_words.answers`): a
small embedding model finds "Ada is a regular at the inn" as near to "Is Ada hosting a
quiz at the inn?" as the memory of the quiz, and words that agree tell them apart. The
resident states the best one or two in the first person, saying who told it where its
memory says so ("Ada Quill told me that ..."); a conversation is told as having talked,
with the line that bears most on the question in reported speech. With none that answers
it says it has not heard of it, so it neither denies what its memory holds nor claims what it does
not. What kind of question it is, is judged by meaning (`relevance.question_kind`):
- what is new or happening, naming nothing ("anything happening in the coming days?"): the
  news it holds, most relevant first;
- its own whereabouts or doings at a time ("where will you be at 3pm tomorrow?"): its plan
  at that moment (`plan`: the day's hour blocks and its commitments; a day not planned yet
  is told from the latest day planned, as most days go alike);
- about itself: what stands out, else the memories retrieved first, the best it has.
"Do you know <name>?" is a yes when a memory names them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from agents.offline.asked_time import moment_asked
from agents.offline.key_words import answers, asked_about, key_words
from agents.offline.memo import fact_and_source
from agents.offline.news import mid_sentence, verb_after_name
from agents.offline.policy import lines_of
from agents.offline.relevance import fits, newsworthy, question_kind
from agents.offline.talk import first_person, with_pronouns
from llm.tasks import Inputs

_PERSON = re.compile(r"^\s*Do you know ((?:[A-Z][\w'-]*)(?: [A-Z][\w'-]*)*)\s*\?\s*$")
_YES_NO = re.compile(
    r"^\W*(?:do|does|did|have|has|had|is|are|was|were|will|would|can|could|any|anything)\b",
    re.IGNORECASE,
)
_CONTRACTED = {"ve": "has", "ll": "will", "d": "would"}
_QUOTED = re.compile(r'(?:^|[.;] )([A-Z][\w\'-]*(?: [A-Z][\w\'-]*)*) said: "(.*?)"(?=;|$)')
# The question is about the resident itself: "your", "yourself", or "you" doing something
# other than knowing or hearing of something.
_ABOUT_ITSELF = re.compile(
    r"\b(?:your|yourself)\b|\byou\b(?! (?:know|hear|heard|remember|recall|tell|say|think)\b)",
    re.IGNORECASE,
)
ANSWERS = 2  # the memories an answer states
# How far (in standard deviations) a memory's relevance must stand out to answer a
# question, and how far below the best one a second may be.
ANSWERS_FROM = 1.5
SECOND_WITHIN = 1.0


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


def as_fact(memory: str, name: str, question: str = "") -> str:
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
        if question and lines:  # the line that answers the question first
            lifts = [fit.lift for fit in fits(question, [line for _, line in lines])]
            order = sorted(range(len(lines)), key=lambda i: (-lifts[i], lines[i][0] == name))
            lines = [lines[i] for i in order]
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
        told = f"{source} told me that {mid_sentence(first_person(fact, name))}"
        return with_pronouns(told, source)
    return first_person(memory, name)


_PLAN_HEADER = re.compile(r"^This is [^:]+'s plan for [^:]*:\s*")
_PLAN_ITEM = re.compile(r"^\S+ plans to be ")


def _content(memory: str) -> str:
    """What a memory says, for its relevance: news without who told it, a day's plan
    without its header ("This is X's plan for ...": the word "plan" is no plan it tells of)."""
    return _PLAN_HEADER.sub("", fact_and_source(memory)[0])


def _own_plan(memory: str) -> bool:
    """An item or outline of the resident's own day: what it does, not what it heard."""
    return bool(_PLAN_HEADER.match(memory) or _PLAN_ITEM.match(memory))


def _sentences(facts: list[str]) -> str:
    return " ".join(f"{fact[0].upper()}{fact[1:].rstrip('.!')}." for fact in facts)


def _stated(memories: list[str], name: str, question: str) -> list[str]:
    facts: list[str] = []
    for memory in memories:
        fact = as_fact(memory, name, question)
        if len(fact) > 10 and fact not in facts:
            facts.append(fact)
        if len(facts) == ANSWERS:
            break
    return facts


def _answering(memories: list[str], question: str, kind: str, name: str) -> list[str]:
    """The memories that answer `question`, best first. One that shares the question's
    words answers when it states what it asks (`key_words.answers`: a memory of the same
    person or place on another matter is no answer); one in other words answers when its
    relevance stands out (`ANSWERS_FROM`, and within `SECOND_WITHIN` of the best), unless
    the question names a person or place. Asked what is new, naming nothing, the news it
    holds when none does. Its own plan answers only a question
    about itself."""
    told = [m for m in memories if kind == "self" or not _own_plan(m)]
    lifts = [fit.lift for fit in fits(question, [_content(m) for m in told])]
    asked = asked_about(question, name)
    asking = asked.names | asked.others
    ranked = sorted(range(len(told)), key=lambda i: (-lifts[i], i))
    stating = [i for i in ranked if answers(_content(told[i]), asked)]
    other_words = [
        i for i in ranked if lifts[i] >= ANSWERS_FROM and not asking & key_words(_content(told[i]))
    ]
    if asked.named:  # of a person or place it names: a memory that names them, stating it
        other_words = []
    best = max((lifts[i] for i in other_words), default=0.0)
    found = [
        told[i]
        for i in ranked
        if i in stating or (i in other_words and lifts[i] >= best - SECOND_WITHIN)
    ]
    if not found and kind == "news" and not asked.size:  # what is new, naming nothing
        news = newsworthy([_content(told[i]) for i in ranked])
        found = [told[i] for i, is_news in zip(ranked, news, strict=True) if is_news]
    return found


@dataclass(frozen=True)
class _Planned:
    start: datetime
    end: datetime
    doing: str


_PLAN_LINE = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d)-(\d\d:\d\d): (.+)$")


def _plan(value: object) -> list[_Planned]:
    """The `plan` input's lines ("2024-05-06 15:00-16:00: working at the counter, at shop
    of Quay store"), commitments first."""
    found = []
    for line in lines_of(value):
        matched = _PLAN_LINE.match(line.strip())
        if matched:
            start = datetime.strptime(matched[1], "%Y-%m-%d %H:%M")
            end = datetime.combine(start.date(), datetime.strptime(matched[2], "%H:%M").time())
            end += timedelta(days=1) if end <= start else timedelta()
            found.append(_Planned(start, end, matched[3].strip().rstrip(".")))
    return found


def _at(plan: list[_Planned], moment: datetime) -> _Planned | None:
    """What the plan has at `moment`; on a day not planned yet, what the latest day planned
    before it has at that time of day."""
    exact = next((p for p in plan if p.start <= moment < p.end), None)
    if exact is not None or not plan:
        return exact
    days = sorted({p.start.date() for p in plan if p.start.date() < moment.date()}, reverse=True)
    for day in days:
        like = datetime.combine(day, moment.time())
        found = next((p for p in plan if p.start <= like < p.end), None)
        if found is not None:
            return found
    return None


def _clock_said(moment: datetime) -> str:
    hour = moment.hour % 12 or 12
    minute = f":{moment.minute:02d}" if moment.minute else ""
    return f"{hour}{minute}{'am' if moment.hour < 12 else 'pm'}"


def _now(inputs: Inputs) -> datetime | None:
    try:
        return datetime.strptime(str(inputs.get("time", "")), "%B %d, %Y, %H:%M")
    except ValueError:
        return None


def _plan_answer(inputs: Inputs, question: str, name: str) -> str:
    """Its own plan at the moment asked; now and next when the question names no time."""
    plan = _plan(inputs.get("plan", ""))
    now = _now(inputs)
    if now is None:
        return ""
    moment = moment_asked(question, now)
    if moment is not None:
        moment = moment.replace(tzinfo=None)
        found = _at(plan, moment)
        if found is None:
            return ""
        day = moment.date() - now.date()
        when = {0: "today", 1: "tomorrow"}.get(day.days, f"on {moment:%A}")
        doing = mid_sentence(first_person(found.doing, name))
        return f"At {_clock_said(moment)} {when} I'll be {doing}."
    ahead = [p for p in plan if p.end > now][:2]
    said = [
        f"{'Right now' if p.start <= now else f'From {p.start:%H:%M}'} "
        f"I'm {'' if p.start <= now else 'going to be '}{mid_sentence(first_person(p.doing, name))}"
        for p in ahead
    ]
    return _sentences(said) if said else ""


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
        facts = _stated(known, name, "")
        return f"Yes. {_sentences(facts)}" if facts else f"Yes, I know {person[1]}."
    kind = question_kind(question).label if question.strip() else "self"
    asked = asked_about(question, name)
    if kind in ("self", "plan") and asked.named:
        kind = "fact"  # of someone or somewhere it names, not of the resident itself
    if kind == "plan" and not _ABOUT_ITSELF.search(question):
        kind = "fact"  # what it heard of a time ("did you hear that ... at 2pm?"), not its own
    facts = _stated(_answering(memories, question, kind, name), name, question) if question else []
    yes_no = _YES_NO.match(question) is not None
    # Its plan answers a question of its doings, unless the question names no time and
    # memories answer it ("are you going to a party?": the invitation it remembers).
    now = _now(inputs)
    timed = now is not None and moment_asked(question, now) is not None
    if kind == "plan" and (timed or not facts):
        planned = _plan_answer(inputs, question, name)
        if planned:
            return planned
    if facts:
        return f"Yes. {_sentences(facts)}" if yes_no else _sentences(facts)
    if kind in ("self", "plan") and (not asked.size or _ABOUT_ITSELF.search(question)):
        facts = _stated(memories, name, "")  # the best it has about itself
        return _sentences(facts) if facts else "I'm not sure; I don't remember anything about that."
    return "No, I haven't heard anything about that." if yes_no else "I haven't heard of that."
