"""Offline policies of the social loop (rules, not a model): what a resident takes away
from a conversation (a memo of the news it heard, with who said it, and a planning
thought), whether it commits to go to a happening it heard of, what it intends after a
thought, and how it sums up a relationship.

A happening is found in text by its key facts: that it is one (a statement nearest in
meaning to the examples of happenings one can go to, judgments.kinds, of any kind: a
chess final, a lecture, a market), where (a place the resident knows), when (a date and
a time window), and what it is called (the head of the noun phrase that names it, by
grammar). The facts are kept word for word as news passes from one resident to the
next, so they survive many hops.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta

from agents.offline.judgments import EVENT, judgments, kind
from agents.offline.memo import fact_and_source, memo
from agents.offline.places import places_of
from agents.offline.policy import lines_of
from llm.tasks import Inputs

_STARTERS = {"My", "Me", "We", "Our", "For", "The", "It", "Its", "This", "That", "There", "A"}
_STARTERS |= {"An", "Some", "Everyone", "People", "In", "On", "At", "Today", "Tomorrow"}


def mid_sentence(text: str) -> str:
    """A sentence to go after "By the way, " or "I heard that ": its first word lower-cased
    unless a name."""
    return text[0].lower() + text[1:] if text.split(" ", 1)[0] in _STARTERS else text


_MONTH_NAMES = "january february march april may june july august september october november"
_MONTHS = {m: i for i, m in enumerate(f"{_MONTH_NAMES} december".split(), start=1)}
_DATE = re.compile(
    r"\b(?:on\s+)?(?P<month>January|February|March|April|May|June|July|August|September|"
    r"October|November|December)\s+(?P<day>\d{1,2})(?:st|nd|rd|th)?\b",
    re.IGNORECASE,
)
_CLOCK = r"(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?"
_WINDOW = re.compile(rf"\bfrom\s+{_CLOCK}\s*(?:to|until|-|till)\s*{_CLOCK}", re.IGNORECASE)
_AT = re.compile(rf"\b(?:at|from)\s+{_CLOCK}(?=\W|$)", re.IGNORECASE)
# Days a happening may be named by instead of its date (the calendar's, no town's).
_HOLIDAYS = {
    "new year's day": (1, 1),
    "valentine's day": (2, 14),
    "halloween": (10, 31),
    "christmas eve": (12, 24),
    "christmas day": (12, 25),
    "new year's eve": (12, 31),
}


@dataclass(frozen=True)
class Happening:
    """The key facts of an event: what, where (a sector of the town) and when."""

    what: str
    place: str
    day: date | None
    start: int  # minutes after midnight
    end: int


def _minutes(hour: str, minute: str | None, half: str | None) -> int:
    h, m = int(hour) % 24, int(minute or 0)
    half = (half or "").replace(".", "").lower()
    if half == "pm" and h < 12:
        h += 12
    elif half == "am" and h == 12:
        h = 0
    elif not half and 1 <= h <= 7:
        h += 12  # "at 5" for a party means the afternoon
    return h * 60 + m


# A noun phrase: a determiner, then up to five words up to a preposition, a verb's
# auxiliary or the end of a clause (grammar only: which words name happenings is meaning's).
_NOUN_PHRASE = re.compile(
    r"(?:\b(?:[Aa]n?|[Tt]he|[Hh]is|[Hh]er|[Tt]heir|[Mm]y|[Oo]ur|[Yy]our)|[A-Z][\w-]*'s)"
    r"\s+((?:[\w'-]+\s+){0,4}?[\w'-]+)"
    r"(?=\s+(?:at|on|in|from|for|about|of|with|by|to|this|next|tomorrow|tonight|today|is|are"
    r"|was|will|would|has|had|be|starts|opens|begins)\b|\s*[,.;:!?()]|\s*$)"
)


def happening_what(text: str, place: str = "") -> str:
    """What a happening is called, by grammar: the last word of the noun phrase naming it
    ("a midsummer lantern party" -> "party", "the chess final" -> "final"); the first noun
    phrase after the subject's, before the place; "" when the text has none."""
    before = text.split(place, 1)[0] if place and place in text else text
    found = list(_NOUN_PHRASE.finditer(before))
    chosen = next((m for m in found if m.start() > 0), found[0] if found else None)
    return chosen[1].split()[-1].lower() if chosen else ""


def windowed(text: str) -> bool:
    """Whether a text gives a window of time ("from 5pm to 7pm"), not a moment alone."""
    return _WINDOW.search(text) is not None


def happening_in(text: str, places: list[str], today: date) -> Happening | None:
    """The happening a text tells of, when it names a known place and a time and means a
    happening one can go to (by meaning, of any kind)."""
    lowered = text.lower()
    place = next((p for p in sorted(places, key=len, reverse=True) if p.lower() in lowered), "")
    window = _WINDOW.search(text)
    if window:
        start = _minutes(window[1], window[2], window[3] or window[6])
        end = _minutes(window[4], window[5], window[6])
    else:
        at = _AT.search(text)
        if not at:
            return None
        start = _minutes(at[1], at[2], at[3])
        end = start + 120
    if not place or end <= start or kind(text) != EVENT:
        return None
    day: date | None = None
    found = _DATE.search(text)
    if found:
        day = date(today.year, _MONTHS[found["month"].lower()], int(found["day"]))
    elif holiday := next((d for name, d in _HOLIDAYS.items() if name in lowered), None):
        day = date(today.year, *holiday)
    elif "tomorrow" in lowered:
        day = today + timedelta(days=1)
    elif "today" in lowered or "tonight" in lowered:
        day = today
    named = text[lowered.index(place.lower()) :][: len(place)]  # as the text writes it
    what = happening_what(text, named) or "event"
    return Happening(what=what, place=place, day=day, start=start, end=end)


def third_person(text: str, speaker: str) -> str:
    """What `speaker` said of itself, told of it: "I am hosting my party" -> "<speaker> is
    hosting <speaker>'s party"."""
    replacements = [
        (r"\bI am\b", f"{speaker} is"),
        (r"\bI'm\b", f"{speaker} is"),
        (r"\bI have\b", f"{speaker} has"),
        (r"\bI've\b", f"{speaker} has"),
        (r"\bI will\b", f"{speaker} will"),
        (r"\bI'll\b", f"{speaker} will"),
        (r"\bI'd\b", f"{speaker} would"),
        (r"\bmy\b", f"{speaker}'s"),
        (r"\bMy\b", f"{speaker}'s"),
        (r"\bI\b", speaker),
        (r"\bme\b", speaker),
    ]

    def after_name(m: re.Match[str]) -> str:
        # "Tobin Reyes and I are": a pair keeps its plural verb.
        pair = re.search(r"\b[A-Z][\w'-]* and $", m.string[: m.start()]) is not None
        verb = m["verb"] if pair else verb_after_name(m["verb"])
        return f"{speaker} {m['adverb'] or ''}{verb}"

    text = _I_VERB.sub(after_name, text)
    for pattern, replacement in replacements:
        text = re.sub(pattern, replacement, text)
    return text


_ADVERBS = "sometimes|often|always|usually|never|also|really|just|still|rarely"
# A verb with its "n't" whole: "I haven't" -> "Ada hasn't", never "Ada havens't".
_I_VERB = re.compile(rf"\bI (?P<adverb>(?:{_ADVERBS}) )?(?P<verb>[a-z]+(?:n't)?)(?![\w'])")
_NOT_VERBS = {"am", "was", "were", "will", "would", "can", "could", "should", "might", "must"}
_NOT_VERBS |= {"may", "had", "did", "a", "the", "to", "and", "in", "at", "on", "also", "often"}
_NOT_VERBS |= {"really", "always", "never", "just"}
# Irregular past tenses stay as they are after a name ("I told" -> "Ada told").
_IRREGULAR_PAST = {"told", "said", "met", "went", "saw", "heard", "made", "thought", "knew"}
_IRREGULAR_PAST |= {"got", "took", "came", "found", "gave", "left", "felt", "kept", "bought"}
_IRREGULAR_PAST |= {"brought", "began", "ran", "wrote", "spoke", "sent", "spent", "taught"}
_IRREGULAR = {"am": "is", "have": "has", "do": "does", "go": "goes", "be": "is"}
_IRREGULAR |= {"haven't": "hasn't", "don't": "doesn't", "aren't": "isn't", "amn't": "isn't"}


def verb_after_name(verb: str) -> str:
    """A verb as it goes after a name: "talk" -> "talks", "watch" -> "watches", "have" ->
    "has"; a form that already fits ("told", "says", "planned", "could") is kept."""
    if verb in _IRREGULAR:
        return _IRREGULAR[verb]
    if verb.endswith("n't"):
        return verb  # "can't", "didn't", "won't", "wasn't" fit any subject
    if verb in _NOT_VERBS or verb in _IRREGULAR_PAST or verb.endswith(("ed", "ing")):
        return verb
    if re.search(r"[^s]s$", verb) or verb.endswith(("ches", "shes", "sses", "xes")):
        return verb  # already third person: "associates", "watches"
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        return f"{verb}es"
    if verb.endswith("y") and verb[-2:-1] not in "aeiou":
        return f"{verb[:-1]}ies"
    return f"{verb}s"


def _news_in(line: str) -> tuple[str, str]:
    """The news a line of the offline conversation passes on, as a fact ("" if none), and
    who the speaker says told it ("" when it is the speaker's own)."""
    text = line.strip()
    for opener in ("By the way, ", "Oh, and ", "I'm well, thanks! By the way, "):
        if opener in text:
            text = text.split(opener, 1)[1]
            break
    else:
        return "", ""
    if text.lower().startswith("you are invited"):
        return "", ""
    told = re.match(r"(?P<who>[A-Z][\w'-]+(?: [A-Z][\w'-]+)*) told me that (?P<fact>.+)", text)
    if told is None:
        return fact_and_source(text)[0], ""
    return fact_and_source(named_again(told["fact"], told["who"]))[0], told["who"]


_SUBJECT = re.compile(
    r"(^|\b(?:and|but|that|because|so|when|while|if|then)\s+|,\s+)(he|she|they)\s+"
)
_OWNER = re.compile(r"\b(?:his|their|her(?= [a-z]))\b")
_AFTER_THEY = {"are": "is", "were": "was", "have": "has", "do": "does", "go": "goes"}


def named_again(fact: str, name: str) -> str:
    """What `name` told of itself with pronouns (a line says "Ada told me that she has
    known her neighbour"), with its name again, as a memory keeps it: "Ada has known
    Ada's neighbour"."""
    found = _SUBJECT.search(fact)
    if found is None or found.start() != 0:
        return fact

    plural = found[2] == "they"
    fact = _SUBJECT.sub(lambda m: f"{m[1]}{name} ", fact)
    if plural:  # "they have" -> "Ada has"
        fact = re.sub(
            rf"\b{re.escape(name)} ([a-z]+)\b",
            lambda m: f"{name} {_AFTER_THEY.get(m[1]) or verb_after_name(m[1])}",
            fact,
        )
    return _OWNER.sub(f"{name}'s", fact)


def tell(memory: str, speaker: str, first_person: Callable[[str, str], str]) -> str:
    """How `speaker` passes on a memory: news it heard says who told it ("Ada Quill told
    me that ..."), keeping the key facts word for word; its own thoughts in its voice."""
    fact, source = fact_and_source(memory)
    if source:
        return f"{source} told me that {fact}"
    return first_person(fact, speaker)


def takeaways(inputs: Inputs, rng: random.Random) -> tuple[str, str, Happening | None]:
    """(memo, planning thought, the happening it commits to go to) for `agent_name` after
    its conversation with `partner`: the first news the partner told, in its key facts."""
    name, partner = str(inputs["agent_name"]), str(inputs["partner"])
    said = [
        line.split(": ", 1)[1]
        for line in lines_of(inputs["dialogue"])
        if line.startswith(f"{partner}: ")
    ]
    heard = [(third_person(fact, partner).rstrip("."), who) for fact, who in map(_news_in, said)]
    # Each fact heard, with who the partner had it from; news of itself is no news to it.
    facts = {fact: who for fact, who in heard if fact and name not in fact}
    if not facts:
        return "", "", None
    places = list(places_of(str(inputs["places"])))
    today = date.fromisoformat(str(inputs["date"]))
    # A happening one could go to is what a resident remembers first.
    fact = next((f for f in facts if happening_in(f, places, today)), next(iter(facts)))
    kept = memo(fact, partner, facts[fact])
    happening = happening_in(fact, places, today)
    if happening is None or happening.day is None or happening.day < today:
        return kept, "", None  # news to remember and pass on, nothing to do about it
    if not _goes(inputs, fact, rng):
        return kept, f"I heard that {mid_sentence(fact)}, but I will not go.", None
    when = f"{happening.day:%B} {happening.day.day} at {_clock(happening.start)}"
    host = host_of(fact, happening.what)
    whose = f"{host}'s" if host else "the"
    thought = f"I will go to {whose} {happening.what} at {happening.place} on {when}."
    return kept, thought, happening


# Verbs of making a happening happen: its subject is its host ("X is planning a party").
_HOSTING = re.compile(r"\b(?:plan|throw|host|organi[sz]|hold|giv|put|run|arrang)\w*\b")


def host_of(fact: str, what: str) -> str:
    """Whose `what` the fact says it is: a possessive before it ("... to Ada Byrne's
    quiz night" -> Ada Byrne), else the subject when it makes it happen ("Ada Byrne is
    planning a quiz night"); "" when the fact says neither ("Ada Byrne will go to a quiz
    night": she is a guest, not its host)."""
    owned = re.search(
        rf"(?<![Aa] )(?<![Aa]n )(?<![Tt]he )\b((?:[A-Z][\w-]+ )*[A-Z][\w-]+)'s "
        rf"(?:[\w'-]+ ){{0,4}}?{re.escape(what)}",
        fact,
    )
    if owned:
        return owned.group(1)
    parts = re.split(r" (?:is|will|has|was) ", fact, maxsplit=1)
    if len(parts) < 2:
        return ""
    subject, rest = parts[0].strip(), parts[1]
    # The name right before the verb is its subject: "Ida Moss heard that Oren Pike is
    # planning ..." is Oren Pike's, not "Ida Moss heard that Oren Pike"'s.
    named = re.search(r"(?:^|\s)((?:[A-Z][\w'-]* )*[A-Z][\w'-]*)$", subject)
    if named and named.start(1) > 0:
        subject = named[1]
    if len(subject) < 60 and _HOSTING.search(rest.split(what, 1)[0]):
        return subject
    return ""


def _goes(inputs: Inputs, fact: str, rng: random.Random) -> bool:
    """Whether the resident goes: likelier when it is invited or welcome, knows the host
    and is a social person (the fact and the summary judged by meaning)."""
    chance = 0.1  # with the rest, near the paper's 5 of 12 invited who came
    if judgments([fact], "invitation", 5)[0].label == "open":
        chance += 0.25
    host = fact.split(" is ")[0].strip()
    relationship = str(inputs["relationship"]).lower()
    if host and host.lower() in relationship and "does not know" not in relationship:
        chance += 0.25
    if _sociable(str(inputs["summary"])):
        chance += 0.15
    return rng.random() < chance


def _sociable(summary: str) -> bool:
    """Whether a summary describes a sociable person: by its sentence that is surest either
    way (a summary's sentences of study or work say nothing of it)."""
    lines = [re.sub(r"^[A-Z][\w ]{0,30}:\s*", "", line) for line in summary.splitlines()]
    sentences = [
        s for line in lines for s in re.split(r"(?<=[.!?])\s+", line) if len(s.split()) > 2
    ] or [summary]
    found = judgments(sentences, "sociable", 5)
    return max(found, key=lambda j: j.score).label == "sociable"


def intention(inputs: Inputs) -> Happening | None:
    """A happening the resident's own thought names, to commit to (a whisper)."""
    places = list(places_of(str(inputs["places"])))
    today = date.fromisoformat(str(inputs["date"]))
    happening = happening_in(str(inputs["thought"]), places, today)
    if happening is not None and happening.day is None:
        return Happening(happening.what, happening.place, today, happening.start, happening.end)
    return happening


def relationship(inputs: Inputs) -> str:
    """How `agent_name` stands with `other_name`, from what it retrieved about the other."""
    name, other = str(inputs["agent_name"]), str(inputs["other_name"])
    mentions = [re.sub(r"^\d+\.\s*", "", s) for s in lines_of(inputs["statements"]) if other in s]
    # What one has seen the other doing says little of how they stand: the rest first.
    known = sorted(mentions, key=lambda s: s.startswith(f"{other} is "))
    if not known:
        return f"{name} does not know {other} well yet."
    first = known[0].rstrip(".")
    return f"{name} knows {other}: {first}."


def _clock(minutes: int) -> str:
    hour, minute = divmod(minutes, 60)
    half = "am" if hour < 12 else "pm"
    return f"{hour % 12 or 12}:{minute:02d}{half}" if minute else f"{hour % 12 or 12}{half}"


def clock(minutes: int) -> str:
    """24-hour "HH:MM" of minutes after midnight."""
    return f"{minutes // 60:02d}:{minutes % 60:02d}"
