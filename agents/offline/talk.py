"""Offline policies of talk: whether to talk, the lines of a conversation and its summary
(the answers to an interview are in interview.py).

A line passes on, in the first person, what matters to the speaker (happenings, warnings,
changes, plans of others, news it heard: what its memory means, judged by the nearest
labelled examples, judgments.kinds), so news of any kind spreads; then what someone is
like; never an everyday doing it merely saw ("Ada Quill is tidying up", "the stove is
idle"). With nothing worth telling, it makes small talk about its own day.
"""

from __future__ import annotations

import random
import re

from agents.offline.judgments import EVENT, EVERYDAY, NEWSWORTHY, kinds
from agents.offline.memo import fact_and_source
from agents.offline.news import happening_what, mid_sentence, tell
from agents.offline.policy import lines_of
from llm.tasks import Inputs


def react(inputs: Inputs, rng: random.Random) -> str:
    mine, theirs = str(inputs["action"]).lower(), str(inputs["observed_action"]).lower()
    if any(w in mine or w in theirs for w in ("sleep", "chatting", "conversation")):
        return "continue"
    other, me = str(inputs["observed_name"]), str(inputs.get("agent_name", ""))
    # What it recalls of the other (numbered statements), read whole.
    recalled = [re.sub(r"^\d+\.\s*", "", line) for line in lines_of(inputs["context"])]
    mentions = [line for line in recalled if other in line and "does not know" not in line]
    # Having caught up already today, they mostly just nod: free to talk to someone else.
    pair = rf"({re.escape(me)} and {re.escape(other)}|{re.escape(other)} and {re.escape(me)})"
    talked = any(re.search(rf"{pair} had a conversation", line) for line in recalled)
    chance = 0.1 if talked else 0.5 if mentions else 0.05
    if mentions and not talked and any("invite" in line.lower() for line in recalled):
        chance = 0.9  # an invitation to give: it goes up to the person
    return "talk" if rng.random() < chance else "continue"


# --- the first person ------------------------------------------------------------------------

# Where a clause starts: a name or "you" there is the subject ("I"), elsewhere an object ("me").
_CLAUSE = r"(^|[.;:!?,\"]\s+|\b(?:and|but|that|because|so|when|while|if|then)\s+)"
_AUXILIARY = r"had|did|will|would|can|could|should|must|might|may"
_ADVERB = r"(?:also|often|sometimes|really|always|usually|never|still|just|already|even|now)"
# The form after "I" of verbs the suffix rules get wrong, and words after "I" that end in s
# but are no third-person verb.
_AFTER_I = {
    "is": "am",
    "are": "am",
    "were": "was",
    "has": "have",
    "does": "do",
    "goes": "go",
    **{word: word for word in ("was", "perhaps", "as", "us", "focus", "discuss", "miss")},
}
# Verbs a speaker's sentence goes on with after "and" ("... and spends his free time").
_CONJOINED = re.compile(
    r"\band (is|has|does|goes|(?:spend|live|love|like|enjoy|want|work|help|hope|think|know"
    r"|teach|stud|write|read|take|make|get|tend|plan|care|feel|need|tr|run|keep|share|paint"
    r"|play|sing|cook|believe|find|look|wish|see|say|tell|ask|talk|listen|watch|associate"
    r"|stand|open|close|attend|visit|walk|sit|go)(?:s|es|ies))\b"
)
_HIS = {"he": "I", "him": "me", "his": "my", "himself": "myself"}
_HERS = {"she": "I", "hers": "mine", "herself": "myself"}
_NOT_OWNED = {"and", "or", "but", "to", "with", "at", "in", "on", "for", "about", "a", "an"}
_NOT_OWNED |= {"the", "that", "so", "because", "if", "when", "from", "by", "of", "as", "too"}


def _base(verb: str) -> str:
    """A verb as it goes after "I": "associates" -> "associate", "watches" -> "watch"."""
    if verb in _AFTER_I:
        return _AFTER_I[verb]
    if len(verb) > 4 and verb.endswith("ies"):
        return f"{verb[:-3]}y"
    if re.search(r"(?:ch|sh|ss|x|z|o)es$", verb):
        return verb[:-2]
    if len(verb) > 2 and verb.endswith("s") and not verb.endswith(("ss", "us", "is")):
        return verb[:-1]
    return verb


def _agree(text: str) -> str:
    """Verbs after "I" in the first person."""

    def verb(match: re.Match[str]) -> str:
        if re.search(r"\b[A-Z][\w'-]* and $", text[: match.start()]):
            return match[0]  # "Maria Lopez and I are": a pair keeps its plural verb
        return f"I{match[1]} {_base(match[2])}"

    return re.sub(rf"\bI((?:\s+{_ADVERB})*)\s+([a-z]+)\b", verb, text)


def _capitalised(word: str, like: str) -> str:
    return word[0].upper() + word[1:] if like[0].isupper() else word


def _own_pronouns(text: str) -> str:
    """He/him/his (or she/her) as the speaker's own, in a statement that opens with the
    speaker as its subject, up to the first other name: before it they can only mean it.
    A name in apposition (", Jennifer Moore,") says who, and does not end it."""
    cut = len(text)
    for name in re.finditer(r"\b[A-Z][\w'-]*(?: [A-Z][\w'-]*)*", text):
        before = text[: name.start()]
        if not before or name[0] == "I" or re.search(r"[.!?]\s*$", before):
            continue  # a sentence's first word, or the speaker
        if before.endswith(", ") and text[name.end() : name.end() + 1] == ",":
            continue  # in apposition
        cut = name.start()
        break
    head, tail = text[:cut], text[cut:]
    found = re.search(r"\b(he|him|his|himself|she|her|hers|herself)\b", head, re.IGNORECASE)
    if not found:
        return text
    if found[1].lower() in _HIS:
        pattern, own = r"\b(he|him|his|himself)\b", _HIS
    else:
        pattern, own = r"\b(she|hers|herself)\b", _HERS

        def her(match: re.Match[str]) -> str:
            owned = match[1] and match[1].lower() not in _NOT_OWNED
            return _capitalised("my" if owned else "me", match[0])

        head = re.sub(r"\bher\b(?=\s+([a-z]+)|)", her, head, flags=re.IGNORECASE)
    head = re.sub(
        pattern, lambda m: _capitalised(own[m[1].lower()], m[1]), head, flags=re.IGNORECASE
    )
    return head + tail


def first_person(statement: str, speaker: str) -> str:
    """`statement` as the speaker would say it: its name and "you" as "I", "me" or "my",
    its own pronouns where nobody else could be meant, and the verbs after "I" agreeing."""
    first = speaker.split()[0]
    name = rf"(?:{re.escape(speaker)}|{re.escape(first)}(?! [A-Z]))"
    text = statement.strip()
    by_name = re.match(rf"{name}\b(?!')", text) is not None
    # Who the speaker is goes without saying: "Sam Moore, my husband, is" -> "I am".
    text = re.sub(rf"\b({name}), (?:[a-z]+|[A-Z][\w']*'s)(?: [a-z]+)*,", r"\1", text)
    text = re.sub(rf"\b{name}'s\b", "my", text)
    text = re.sub(rf"\b{name} and ([A-Z][\w'-]*(?: [A-Z][\w'-]*)*)", r"\1 and I", text)
    text = re.sub(rf"{_CLAUSE}{name}\b", lambda m: f"{m[1]}I", text)
    text = re.sub(rf"\b{name}(?= (?:is|was|has|{_AUXILIARY})\b)", "I", text)  # "thinks Sam is"
    text = re.sub(rf"\b{name}\b", "me", text)
    if by_name:
        text = _own_pronouns(text)
    for pattern, replacement in (
        (r"\b[Yy]ou're\b", "I'm"),
        (r"\b[Yy]ou(?='(?:ve|d|ll)\b)", "I"),
        (r"\b[Yy]ourself\b", "myself"),
        (r"\byours\b", "mine"),
        (r"\bYour\b", "My"),
        (r"\byour\b", "my"),
        (r"\b[Yy]ou and ([A-Z][\w'-]*(?: [A-Z][\w'-]*)*)", r"\1 and I"),
        (r"\bYou (?:two|both)\b", "We"),
        (r"\byou (?:two|both)\b", "we"),
    ):
        text = re.sub(pattern, replacement, text)
    text = re.sub(rf"{_CLAUSE}[Yy]ou\b", lambda m: f"{m[1]}I", text)
    text = re.sub(rf"\byou(?= (?:are|were|have|do|{_AUXILIARY})\b)", "I", text)
    text = re.sub(r"\b[Yy]ou\b", "me", text)
    text = _agree(text)
    if by_name:  # "... and spends his free time": the speaker's own verbs too
        text = _CONJOINED.sub(lambda m: f"and {_base(m[1])}", text)
    return (text[:1].upper() + text[1:]).strip().rstrip(".")


# --- conversations -------------------------------------------------------------------------


def _record(memory: str) -> bool:
    """A record of talk (hearsay of hearsay, not passed on) or of the day's plan (what the
    small talk draws on, not read out whole)."""
    plan = memory.startswith("This is ") and "'s plan for " in memory
    return plan or "had a conversation" in memory or " said: " in memory


def _told(memory: str, heard: str) -> bool:
    """Whether what was said already carries the memory (in anyone's words)."""
    words = {w for w in re.findall(r"[a-z']{4,}", memory.lower())}
    said = set(re.findall(r"[a-z']{4,}", heard.lower()))
    return bool(words) and len(words & said) >= 0.6 * len(words)


def _own_happenings(about: str, speaker: str) -> list[str]:
    """The sentences of the speaker's summary that say it is about a happening now ("Oona
    is organising a kite festival on Saturday"), judged by meaning."""
    own = [
        sentence
        for sentence in re.split(r"(?<=[.!?])\s+", about.strip())
        if sentence.startswith((f"{speaker} ", f"{speaker.split()[0]} ")) and len(sentence) <= 300
    ]
    return [m for m, k in zip(own, kinds(own), strict=True) if k == EVENT]


def _news(memories: list[str], speaker: str, listener: str, heard: str, about: str = "") -> str:
    """The most important thing the speaker knows and has not told, in its own words; what
    is about others before what is about the listener (who knows its own affairs). After
    its memories, a happening its own summary says it is about now (`about`: "is organising
    a regatta on Sunday"), as the paper's prompt shows the speaker's identity: what it hosts
    is what it mentions when it has nothing newer (what it is saving for is not news)."""
    own = _own_happenings(about, speaker)
    told = [
        m
        for m in [*memories, *own]
        if not _record(m)
        and len(m) <= 300
        and not m.startswith(listener)  # its own doings are no news to the listener
        and " plans to be " not in m  # an item of a plan is no news either
    ]
    # An everyday sighting ("Ada Quill is tidying up") is nothing to tell anyone.
    kind = dict(zip(told, kinds(told), strict=True))
    worth = [m for m in told if kind[m] != EVERYDAY]
    worth.sort(key=lambda m: (kind[m] not in NEWSWORTHY, listener.split()[0] in m))  # stable
    for memory in worth:
        if fact_and_source(memory)[1] == listener:
            continue  # not back to the one who told it
        news = tell(memory, speaker, first_person)  # heard news says who told it
        if len(news) > 10 and not _told(news, heard):
            return mid_sentence(news)
    return ""


_SMALL_TALK = {
    "morning": (
        "It's a lovely morning. I'm just getting my day started.",
        "I slept well, and I'm looking forward to the day.",
    ),
    "afternoon": (
        "My day has been busy so far, but it's a good one.",
        "It's been a pleasant afternoon so far.",
    ),
    "evening": (
        "It's been a long day, and I'm looking forward to a quiet evening.",
        "I'm winding down for the evening.",
    ),
}


def _small_talk(
    memories: list[str], speaker: str, time: str, rng: random.Random, heard: str = ""
) -> str:
    """A sentence about the speaker's own day: what it plans next, if it recalls its plan;
    else how its day goes at this time of day. Never what was said already (`heard`):
    an echo of the partner's line is no answer to it."""
    now = time if re.fullmatch(r"\d\d:\d\d", time) else "12:00"
    for memory in memories:
        if memory.startswith(f"This is {speaker}'s plan"):
            for start, doing in re.findall(r"(\d\d:\d\d) ([^;]+)", memory):
                said = f"Later today I'll be {doing.strip().rstrip('.')}, from {start}."
                if start > now and "sleep" not in doing and said not in heard:
                    return said
    part = "morning" if now < "12:00" else "afternoon" if now < "17:00" else "evening"
    fresh = [line for line in _SMALL_TALK[part] if line not in heard]
    return rng.choice(fresh) if fresh else ""


def converse_line(inputs: Inputs, rng: random.Random) -> tuple[str, bool]:
    speaker, listener = str(inputs["speaker"]), str(inputs["listener"])
    dialogue = [line for line in lines_of(inputs["dialogue"]) if ": " in line]
    said = [line.split(": ", 1)[1] for line in dialogue if line.startswith(f"{speaker}: ")]
    heard = " ".join(line.split(": ", 1)[1] for line in dialogue)
    first = listener.split()[0]
    if not dialogue:
        return f"Hi {first}, good to see you! How are you?", False
    memories = [re.sub(r"^\d+\.\s*", "", m) for m in lines_of(inputs["memories"])]
    for memory in memories:  # an invitation the speaker means to give this listener
        if "invite" in memory.lower() and first in memory and "invited" not in heard:
            # To the happening it recalls (by meaning), of whatever kind, else the one its
            # summary says it is about now; a record of talk is none, whatever it holds.
            about = _own_happenings(str(inputs.get("summary", "")), speaker)
            others = [m for m in memories if m != memory and not _record(m)] + about
            judged = zip(others, kinds(others), strict=True)
            happening = next((m for m, k in judged if k == EVENT), "")
            detail = f" {first_person(happening, speaker)}." if happening else ""
            to = f" to my {what}" if (what := happening_what(happening)) else ""
            return f"By the way, {first}, you are invited{to}!{detail}", False
    news = _news(memories, speaker, listener, heard, str(inputs.get("summary", "")))
    if news:
        opener = "Oh, and " if said else "I'm well, thanks! By the way, "
        return f"{opener}{with_pronouns(news, _teller(news))}.", (len(said) >= 2)
    goodbye = f"It was nice talking to you, {first}. See you around!"
    if not any(not line.startswith("Hi ") for line in said):  # has said nothing of its own
        talk = _small_talk(memories, speaker, str(inputs.get("time", "")), rng, heard)
        if not said:
            return f"I'm well, thanks! {talk}".strip(), False
        return f"{talk} {goodbye}".strip(), True
    return goodbye, True


def _teller(news: str) -> str:
    """Who told the news that a line passes on ("Ada Byrne told me that ..."), or ""."""
    told = re.match(r"([A-Z][\w'-]*(?: [A-Z][\w'-]*)*) told me that ", news)
    return told[1] if told else ""


_PRONOUNS = {
    "he": ("he", "him", "his"),
    "she": ("she", "her", "her"),
    "they": ("they", "them", "their"),
}
# "they" takes the plural verb: "they has" -> "they have".
_THEY_VERB = re.compile(rf"\b([Tt]hey)((?:\s+{_ADVERB})*)\s+([a-z]+)\b")
_PLURAL = {"has": "have", "is": "are", "was": "were", "does": "do", "goes": "go"}


def with_pronouns(text: str, name: str) -> str:
    """`name` told of once, then as a pronoun: "Ada Byrne told me that Ada Byrne has
    known Ada Byrne's neighbour" -> "Ada Byrne told me that she has known her
    neighbour". He or she when the text already calls someone so (and only one of them),
    else they."""
    if not name:
        return text
    first = name.split()[0]
    mentions = list(
        re.finditer(rf"\b(?:{re.escape(name)}|{re.escape(first)}(?! [A-Z]))('s)?\b", text)
    )
    if len(mentions) < 2:
        return text
    he = re.search(r"\b(?:he|him|his|himself)\b", text, re.IGNORECASE)
    she = re.search(r"\b(?:she|her|hers|herself)\b", text, re.IGNORECASE)
    subject, obj, owner = _PRONOUNS["he" if he and not she else "she" if she and not he else "they"]
    out, last = text[: mentions[0].end()], mentions[0].end()
    for mention in mentions[1:]:
        before = text[last : mention.start()]
        at_clause = re.search(rf"{_CLAUSE}$", text[: mention.start()]) is not None
        word = owner if mention[1] else subject if at_clause else obj
        out += before + word
        last = mention.end()
    out += text[last:]
    if subject == "they":
        out = _THEY_VERB.sub(
            lambda m: (
                f"{m[1]}{m[2]} {_PLURAL.get(m[3], _base(m[3]) if m[3].endswith('s') else m[3])}"
            ),
            out,
        )
    return out


# --- summaries -----------------------------------------------------------------------------


_OPENERS = ("By the way, ", "Oh, and ")  # how converse_line brings up news


def conversation_summary(inputs: Inputs) -> str:
    """Who talked, and the news each brought up, in their words without the greeting or
    the opener that led to it."""
    lines = [line for line in lines_of(inputs["dialogue"]) if ": " in line]
    told = []
    for line in lines:
        speaker, text = line.split(": ", 1)
        cut = max((text.find(o) + len(o) for o in _OPENERS if o in text), default=-1)
        if cut >= 0 and text[cut:].strip():
            news = text[cut:].strip()
            told.append(f'{speaker} said: "{news[0].upper()}{news[1:]}"')
    return f"{inputs['participants']} had a conversation. {'; '.join(told[:3])}".strip()
