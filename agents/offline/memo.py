"""The stand-in's memo of news heard in a conversation, as its memory keeps it: the fact,
who told it, and, when that one passed on what another had told it, from whom it had it
("<fact> (Ada Byrne told me)." or "<fact> (Ada Byrne told me, having heard it from Cato
Wren)."). Written by the takeaways (news.py), read wherever news is told or rated."""

from __future__ import annotations

import re

_TOLD = re.compile(
    r"^(?P<fact>.+?)\s*\((?P<source>[^(),]+) told me"
    r"(?:, having heard it from (?P<origin>[^()]+))?\)\.?$"
)


def memo(fact: str, source: str, origin: str = "") -> str:
    """The memory of `fact` as `source` told it (having heard it from `origin`, if any)."""
    heard = f", having heard it from {origin}" if origin and origin != source else ""
    return f"{fact.rstrip('.')} ({source} told me{heard})."


def fact_and_source(memory: str) -> tuple[str, str]:
    """A memo as (fact, who told it); any other memory as (it, "")."""
    matched = _TOLD.match(memory.strip())
    if matched:
        return matched["fact"].strip().rstrip("."), matched["source"].strip()
    return memory.strip().rstrip("."), ""


def firsthand(memory: str) -> tuple[str, bool]:
    """A memory as it would read had its teller not heard it from someone else, and
    whether it did (second-hand news, passed on at least twice)."""
    matched = _TOLD.match(memory.strip())
    if matched is None or matched["origin"] is None:
        return memory, False
    return memo(matched["fact"].strip(), matched["source"].strip()), True
