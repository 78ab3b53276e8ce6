"""Whether a text states a fact, and how much of a question a memory answers, by key words:
the rules the offline interview policy answers by, and that an evaluation checks a user's
named fact against the memory stream with (rules on words, not an understanding of them).

A key word is a number, or a word of four letters or more that is not a common one, taken
by its stem:
an ending (-ing, -ed, -es, -s, -ies, a final e) is cut and the rest kept to five letters,
so "closes", "closing" and "close", "runs" and "running", "hosts" and "hosting" match
(and the verbs of making an event happen are one: plan, organise, host, throw, hold). A
text states a fact when it has every key word of a fact of three key words or fewer, and
three quarters of them (rounded up) of a longer one.

A memory answers a question (`relevance`) when one of its sentences states what the
question asks: it holds half of the question's key words (rounded up; two of a question
of two or more: "Is anyone throwing a chess event?" asks about chess), a word of one of
its full names (two capitalised words or more: a person, a place) if it says any, and at
least one of its key words besides names (capitalised words after its first) if it has
any, besides a verb of making an event happen if it has more: "Ada Quill is
planning her day at the Tin Lantern" does not state "Ada Quill is throwing a party at
the Tin Lantern". "Is Ned Bramble hosting anything?" is not answered by
"Ivo Marsh is friends with Ned Bramble" (no word of hosting), "Did you hear that Ned
Bramble is running for warden?" not by "Ivo Marsh wonders who will run for warden" (not of
Sam), nor by a conversation whose one line names Sam and another the election (words
of two sentences state nothing together); "Ada Quinn's kite contest is at Fern Hill" is
a statement of "Did you hear that Ada Quinn is holding a kite contest at Fern Hill?"
though it leaves out a word or two. The words a question asks with ("event",
"happening", "news") and the name of the one asked are not what it asks about.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

_WORD = re.compile(r"[A-Za-z][A-Za-z']+")
_STEM = 5
_NUMBER = re.compile(r"(?<![\w:])\d+(?=(?:st|nd|rd|th|am|pm)?\b)")
# Words too common to tell texts apart (the offline judge reads content words by them too).
COMMON_WORDS = frozenset(
    [
        "that",
        "this",
        "with",
        "have",
        "from",
        "they",
        "their",
        "there",
        "what",
        "would",
        "about",
        "been",
        "were",
        "will",
        "your",
        "just",
        "when",
        "which",
        "them",
        "then",
        "than",
        "into",
        "some",
        "could",
        "like",
        "also",
        "very",
        "much",
        "more",
        "most",
        "does",
        "here",
        "remember",
        "don't",
        "know",
        "sure",
        "anything",
    ]
)
_NOT_KEY = COMMON_WORDS | {
    "said",
    "told",
    "heard",
    "hear",
    "knows",
    "thing",
    "things",
    "going",
    "being",
    "after",
    "before",
    "over",
    *[
        "whether",
        "while",
        "since",
        "because",
        "should",
        "might",
        "until",
        "upon",
        "onto",
        "these",
        "those",
        "such",
        "each",
        "every",
        "other",
        "others",
        "only",
        "even",
        "still",
        "maybe",
        "perhaps",
    ],
}


def stem(word: str) -> str:
    """A word's stem: "hosting", "hosts", "host" -> "host"; "parties" -> "party"."""
    w = word.lower().removesuffix("'s")
    if w.endswith("ies") and len(w) > 4:
        w = f"{w[:-3]}y"
    else:
        for suffix in ("ing", "ed", "es", "s"):
            if w.endswith(suffix) and len(w) - len(suffix) >= 3 and not w.endswith("ss"):
                w = w[: -len(suffix)]
                if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "aeioulsz":
                    w = w[:-1]  # "running" -> "run"
                break
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    return _ONE_MEANING.get(w[:_STEM], w[:_STEM])


# Verbs of making an event happen, one key word: "Is Sam hosting anything?" is answered by
# "Ned Bramble is organising a quiz night".
_MAKING = "plan"
_ONE_MEANING = {word: _MAKING for word in ("organ", "host", "throw", "arran", "hold")}


def key_words(text: str) -> frozenset[str]:
    """The stems of the fact's key words, and its numbers ("March 3", "at 7pm")."""
    words = (w.lower().removesuffix("'s") for w in _WORD.findall(text))
    numbers = _NUMBER.findall(text)
    return frozenset([stem(w) for w in words if len(w) >= 4 and w not in _NOT_KEY] + numbers)


def states(text: str, key: frozenset[str]) -> bool:
    """Whether `text` holds enough of a fact's key words (see the module's docstring)."""
    if not key:
        return False
    found = key & key_words(text)
    needed = len(key) if len(key) <= 3 else math.ceil(0.75 * len(key))
    return len(found) >= needed


# Words a question asks with, not about: "any events happening at ...", "any news of ...".
_ASKING = frozenset(
    stem(w)
    for w in [
        "event",
        "events",
        "happening",
        "happen",
        "happens",
        "news",
        "tell",
        "where",
        "whose",
        "recently",
        "lately",
        "soon",
        "anyone",
        "someone",
        "something",
        "nothing",
        "everything",
        "ever",
        "think",
        "stuff",
        "going",
        *["today", "tonight", "tomorrow", "week", "weekend", "month"],  # when it asks of
        *["coming", "days", "lately", "latest", "around", "town"],  # what is new, anywhere
    ]
)
_CAPITALISED = re.compile(r"[A-Z][A-Za-z']+")


# A name of two words or more: a person's full name, a place's ("Ned Bramble", "Tin Lantern").
_FULL_NAME = re.compile(r"[A-Z][A-Za-z']+(?:\s+[A-Z][A-Za-z']+)+")


@dataclass(frozen=True)
class Asked:
    """What a question asks about: the stems of the names it says and of its other key
    words, and of the full names among its words (`named`: whom or where it asks about)."""

    names: frozenset[str]
    others: frozenset[str]
    named: frozenset[str] = frozenset()

    @property
    def size(self) -> int:
        return len(self.names) + len(self.others)


def asked_about(question: str, addressee: str = "") -> Asked:
    """The key words of `question` put to `addressee` (whose own name is left out)."""
    own = key_words(addressee)
    key = key_words(question) - _ASKING - own
    first = _WORD.search(question)
    names = {
        stem(m[0])
        for m in _CAPITALISED.finditer(question)
        if first is None or m.start() != first.start()
    }
    named = set().union(*(key_words(m[0]) for m in _FULL_NAME.finditer(question)))
    return Asked(frozenset(key & names), frozenset(key - names), frozenset(key & named))


# Where a sentence ends in a memory: the end of a sentence, "; " between quoted lines, a
# new line (the emergence measures read a memory's sentences by it too).
SENTENCE_END = re.compile(r"(?<=[.!?])[\"']?\s+(?=[A-Z\"'])|;\s+|\n")


def sentences(text: str) -> list[str]:
    return SENTENCE_END.split(text)


def relevance(asked: Asked, text: str) -> int:
    """How well the sentence of `text` that states most of what the question asks states
    it, or 0 when none does (see the module's docstring): what it says of them counts
    before whom it names (each of the question's other key words it holds outweighs all
    its names), so "Ada Quinn's kite contest" answers "Is Ada Quinn holding a kite contest
    at Fern Hill?" before "Ada Quinn is holding a picnic at Fern Hill" does."""
    if not asked.size:
        return 0
    needed = max(min(2, asked.size), math.ceil(asked.size / 2))
    best = 0
    for sentence in sentences(text):
        found = key_words(sentence)
        names, others = len(asked.names & found), len(asked.others & found)
        what = asked.others - {_MAKING} or asked.others  # what is made happen, if said
        if (what and not what & found) or (asked.named and not asked.named & found):
            continue
        if names + others >= needed:
            best = max(best, others * (asked.size + 1) + names)
    return best


def answers(text: str, asked: Asked) -> bool:
    """Whether a sentence of `text` states what `asked` asks (`relevance`)."""
    return relevance(asked, text) > 0
