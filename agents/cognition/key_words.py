"""Whether a text states a fact, by the fact's key words: the rule that the offline interview
policy answers "Did you hear that ...?" by, and that an evaluation checks a user's named
fact against the memory stream with (a rule on words, not an understanding of them).

A key word is a word of four letters or more that is not a common one; two words match
when their first five letters do ("closes" and "close", "running" and "runs" do not). A
text states a fact when it has every key word of a fact of three key words or fewer, and
three quarters of them (rounded up) of a longer one.
"""

from __future__ import annotations

import math
import re

_WORD = re.compile(r"[A-Za-z][A-Za-z']+")
_STEM = 5
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
}


def key_words(text: str) -> frozenset[str]:
    """The stems of the fact's key words."""
    words = (w.lower().removesuffix("'s") for w in _WORD.findall(text))
    return frozenset(w[:_STEM] for w in words if len(w) >= 4 and w not in _NOT_KEY)


def states(text: str, key: frozenset[str]) -> bool:
    """Whether `text` holds enough of a fact's key words (see the module's docstring)."""
    if not key:
        return False
    found = key & key_words(text)
    needed = len(key) if len(key) <= 3 else math.ceil(0.75 * len(key))
    return len(found) >= needed
