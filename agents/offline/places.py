"""Where a resident's day takes it, for the offline stand-in: the places it knows (its
"sector: arena, arena" lines), a known place named in a clause, and its workplace: one
named in a clause of work (a sector, or an arena of one: "the library of the college"),
else the known place nearest in meaning to its occupation ("the innkeeper": the inn),
never a place it only eats, shops or walks at."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from agents.offline.clauses import AWAY_ROLES, WORK_ROLES, Clause, common_words
from agents.offline.meaning import similarity
from world.addresses import Address

# How far above the other known places (on average, each by its nearest arena), and above
# home, the place nearest in meaning to an occupation must be to be taken as its
# workplace (cosines of the memory stream's embeddings): a baker's bakery is; a poet's
# nearest place is not.
ABOVE_OTHERS = 0.025
ABOVE_HOME = 0.02
# How near in meaning a known place must be to a room of the resident's own home to be
# taken for someone's home ("kitchen of lodge" beside its "kitchen of house"), never a
# workplace found by meaning.
HOMELIKE = 0.92
STEM_BONUS = 0.05  # added to the similarity of a place whose name shares a stem with the trade


def _loose(text: str) -> str:
    """Names as persona texts write them: no case, no plural s, no leading "the"."""
    return re.sub(r"^the\s+", "", re.sub(r"s\b", "", text.lower().strip()))


def _named(name: str, text: str) -> bool:
    loose = _loose(name)
    return bool(loose) and re.search(rf"(?<!\w){re.escape(loose)}(?!\w)", _loose(text)) is not None


def known_away(living_area: str, places_text: str) -> dict[str, list[str]]:
    """The sectors the resident knows, with their arenas, but its home."""
    home = Address.parse(living_area).sector
    return {sector: arenas for sector, arenas in places_of(places_text).items() if sector != home}


def place_of(clauses: Sequence[Clause], roles: Sequence[str], places: dict[str, list[str]]) -> str:
    """The first known sector named in a clause of one of these roles, or ""."""
    found = clause_naming(clauses, roles, places)
    return found[0] if found is not None else ""


def clause_naming(
    clauses: Sequence[Clause], roles: Sequence[str], places: dict[str, list[str]]
) -> tuple[str, Clause] | None:
    """The first clause of one of these roles that names a known sector, with the sector."""
    for clause in clauses:
        found = place_named(clause.text, places) if clause.role in roles else None
        if found is not None:
            return found[0], clause
    return None


def workplace_of(
    clauses: Sequence[Clause],
    home: str,
    places: dict[str, list[str]],
    home_rooms: Sequence[str] = (),
) -> tuple[str, str]:
    """(sector, arena) of work among the known `places` away from `home` (whose rooms are
    `home_rooms`): named in a clause of work, else nearest its meaning."""
    working = [c for c in clauses if c.role in WORK_ROLES]
    # A clause that states the hours of work names its place before one that does not;
    # another clause may name the room of it.
    named = [place_named(c.text, places) for c in sorted(working, key=lambda c: not c.times)]
    found = [place for place in named if place is not None]
    if found:
        sector = found[0][0]
        arena = next((arena for s, arena in found if s == sector and arena), "")
        return sector, arena
    away = {
        sector
        for clause in clauses
        if clause.role in AWAY_ROLES
        for sector in places
        if _named(sector, clause.text)
    }
    return _place_meant(working, places, away, home, home_rooms) if working else ("", "")


def place_named(text: str, places: dict[str, list[str]]) -> tuple[str, str] | None:
    # Longest names first: "Quillon College" before a sector called "College".
    for sector in sorted(places, key=len, reverse=True):
        if _named(sector, text):
            arena = next((a for a in places[sector] if _named(a, text)), "")
            return sector, arena
    return None


def _place_meant(
    working: Sequence[Clause],
    places: dict[str, list[str]],
    away: set[str],
    home: str,
    home_rooms: Sequence[str],
) -> tuple[str, str]:
    """The known place nearest in meaning to the occupation, if it stands out from the
    other places (each place by its nearest arena) and from home; none like its home."""
    candidates = [(s, a) for s, arenas in places.items() if s not in away for a in arenas]
    names = [f"{common_words(arena)} of {common_words(sector)}" for sector, arena in candidates]
    if home_rooms and names:  # a place much like a room of its own home is another's home
        rooms = [f"{common_words(arena)} of {common_words(home)}" for arena in home_rooms]
        homelike = similarity(names, rooms).max(axis=1)
        kept = [i for i, value in enumerate(homelike) if value < HOMELIKE]
        candidates, names = [candidates[i] for i in kept], [names[i] for i in kept]
    if len({sector for sector, _ in candidates}) < 2:
        return "", ""
    # What the resident is (clauses without hours) says more of where than its hours do.
    texts = [c.meaning for c in working if not c.times][:4] or [c.meaning for c in working[:4]]
    texts = [common_words(text) for text in texts]
    names.append(f"a room at {common_words(home)}")
    row = similarity(texts, names).max(axis=0)
    # A trade and its place often share a stem ("the sawyer", "Kell sawmill"; "a baker",
    # "the bakehouse"): the resident's own words and the place's, not a list of trades.
    own = _stems(" ".join(texts))
    row[:-1] += [STEM_BONUS if own & _stems(name) else 0.0 for name in names[:-1]]
    best = int(np.argmax(row[:-1]))
    sector = candidates[best][0]
    others: dict[str, float] = {}
    for (other, _), value in zip(candidates, row[:-1], strict=True):
        if other != sector:
            others[other] = max(others.get(other, -1.0), float(value))
    above_others = row[best] - float(np.mean(list(others.values())))
    if above_others < ABOVE_OTHERS or row[best] - row[-1] < ABOVE_HOME:
        return "", ""
    return candidates[best]


def _stems(text: str) -> set[str]:
    """The first four letters of each word of four or more not written with a capital (a
    proper name says nothing of a trade)."""
    return {word[:4].lower() for word in re.findall(r"(?<![\w'])[a-z][a-z']{3,}", text)}


def places_of(text: str) -> dict[str, list[str]]:
    """'sector: arena, arena' lines -> {sector: [arenas]}."""
    places: dict[str, list[str]] = {}
    for line in text.splitlines():
        sector, _, arenas = line.partition(":")
        if sector.strip():
            places[sector.strip()] = [a.strip() for a in arenas.split(",") if a.strip()]
    return places
