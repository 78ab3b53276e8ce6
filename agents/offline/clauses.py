"""An identity's clauses for the offline stand-in: its texts parted into sentences and
clauses, each with its time expressions (read by the parser, `clock.times_in`) and its
role judged by meaning without them (`examples/day_roles.json`: work, study, wake, sleep,
meal, errand, leisure, about), so "keeps a stall from 7 to 11" is work and its hours
are its hours."""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from agents.offline.clock import When, times_in
from agents.offline.meaning import Judgment, example_set, judge

WORK_ROLES = ("work", "study")
AWAY_ROLES = ("meal", "errand", "leisure")
REST = ("wake", "sleep")
_NEAR_TIE = 0.25  # wake and sleep scores this close: the clause's time decides
# Sentences end at . ; ! ? (after "a.m." or "p.m." only when a capital follows).
_SENTENCE = re.compile(r"(?<![aApP]\.[mM]\.)(?<=[.;!?])\s+|(?<=[aApP]\.[mM]\.)\s+(?=[A-Z])")
_COMMA = re.compile(r"(?<=,)\s+")


@dataclass(frozen=True)
class Clause:
    text: str
    role: str
    times: tuple[When, ...]
    meaning: str  # the text judged: without its times and the resident's name


def clauses_of(texts: Sequence[str], *, name: str = "") -> list[Clause]:
    """The clauses of identity texts, each judged by its meaning without its times."""
    pieces: list[_Piece] = []
    for text in texts:
        if text.strip().lower() in ("", "none"):
            continue
        for sentence in _SENTENCE.split(text):
            pieces += _pieces(sentence, name)
    distinct = list(dict.fromkeys(piece.meaning for piece in pieces))
    roles = dict(zip(distinct, _roles_judged(distinct), strict=True))
    return [
        Clause(
            piece.text,
            _role(roles[piece.meaning], piece.times),
            tuple(w for w in piece.times if w.day is None),
            piece.meaning,
        )
        for piece in pieces
    ]


def common_words(text: str, *, lead: bool = False) -> str:
    """A text's common words: proper names ("Korwick", a town's name) say nothing of a
    trade or a place's use and, made up, outweigh the words that do ("the teacher",
    "classroom of Istford school"). A name of several words keeps its last, lowered, which
    says what it names ("Gull Quay Cafe": cafe); a one-word name goes. With `lead`, the
    text's first word stays whatever its case (a sentence's: "Mornings start"). Lowered
    whole when no common word of four letters or more is left."""
    head, rest = ("", text)
    if lead:
        head, _, rest = text.partition(" ")
    common = head + " " + _NAME.sub(_name_head, rest)
    if not re.search(r"[a-z]{4,}", common):
        return text.lower()
    return " ".join(common.split())


_NAME = re.compile(r"(?<![\w'])[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*")


def _name_head(match: re.Match[str]) -> str:
    words = match[0].split()
    return f" {words[-1].lower()} " if len(words) > 1 else " "


def _roles_judged(texts: Sequence[str]) -> list[Judgment]:
    """Each text judged as written and by its common words together (the sum of the two
    judgments' scores): a made-up name can outweigh the words that say what is done
    ("has tea at Karrek tea room"), and a name can say it ("Gull Quay Cafe")."""
    examples = example_set("day_roles")
    written = judge(texts, examples)
    common = judge([common_words(text, lead=True) for text in texts], examples)
    judged = []
    for one, other in zip(written, common, strict=True):
        scores = {
            label: (one.scores.get(label, 0.0) + other.scores.get(label, 0.0)) / 2
            for label in {*one.scores, *other.scores}
        }
        label = max(scores, key=lambda name: (scores[name], name == one.label))
        judged.append(replace(one, label=label, score=scores[label], scores=scores))
    return judged


def _role(judgment: Judgment, times: Sequence[When]) -> str:
    """A clause's role by meaning; between waking and going to sleep, which the meaning of
    a few words about bed may not tell apart, by its time when the two are near: a time
    from 03:00 to noon is a waking, one from 18:00 to 03:00 a bedtime."""
    label = judgment.label
    if label not in REST:
        return label
    wake, sleep = judgment.scores.get("wake", 0.0), judgment.scores.get("sleep", 0.0)
    moments = [w.start if w.start is not None else w.end for w in times if not w.is_range]
    moment = next((m for m in moments if m is not None), None)
    if abs(wake - sleep) >= _NEAR_TIE or moment is None or (times and times[0].bare):
        return label
    if 3 * 60 <= moment < 12 * 60:
        return "wake"
    if moment >= 18 * 60 or moment < 3 * 60:
        return "sleep"
    return label


@dataclass(frozen=True)
class _Piece:
    text: str
    times: tuple[When, ...]
    meaning: str  # what is judged: the clause's head, without times or the name


def _pieces(sentence: str, name: str) -> list[_Piece]:
    """A sentence's clauses (parted at commas and between two times) with their times; a
    piece of a few words, or one that begins with where ("in the cafe"), is part of the
    clause before it ("works nights, 10pm to 6am"), judged as that clause's head."""
    pieces: list[_Piece] = []
    leading: list[tuple[str, tuple[When, ...]]] = []  # times alone that open the sentence
    for part in _COMMA.split(sentence):
        for text in _one_time_each(part):
            times = tuple(times_in(text))
            if not pieces and times and not _without_times(text, times).strip(" ,.;"):
                leading.append((text, times))  # "Nights, 11pm to 6, she is at ...": hers
                continue
            if leading:
                text = " ".join([*(t for t, _ in leading), text])
                times = tuple(w for _, ws in leading for w in ws) + times
                leading = []
            meaning = _judged_text(text, times, name)
            words = len(re.findall(r"[A-Za-z']+", meaning))
            adjunct = re.match(r"(in|at|on|by|near|inside|behind)\b", text, re.IGNORECASE)
            if pieces and (words < (2 if times else 3) or adjunct):
                head = pieces[-1]
                pieces[-1] = _Piece(f"{head.text} {text}", head.times + times, head.meaning)
            else:
                pieces.append(_Piece(text, times, meaning))
    for text, times in leading:  # a sentence of times alone
        pieces.append(_Piece(text, times, _judged_text(text, times, name)))
    return pieces


def _one_time_each(text: str) -> list[str]:
    """A clause of two times parted at the joining word between them: "rises at 4:30 |
    and goes to sleep around 9pm" (not "The Rose and Crown Pub at 5pm": one time)."""
    times = times_in(text)
    for first, second in itertools.pairwise(times):
        between = text[first.at + len(first.text) : second.at]
        join = re.search(r"\s(?:and|but|then)\s|;", between)
        if join:
            cut = first.at + len(first.text) + join.start()
            return [text[:cut].strip(), *_one_time_each(text[cut:].strip())]
    return [text]


def _without_times(text: str, times: Sequence[When]) -> str:
    for when in times:
        text = text.replace(when.text, " ")
    return text


def _judged_text(text: str, times: Sequence[When], name: str) -> str:
    """The clause as judged: its times and the resident's name out (they say nothing of
    what the clause is about); but a part of the day that begins the clause stays when
    too little is left without it ("Mornings start at 5 for ...": "mornings start")."""
    judged = _without_names(_without_times(text, times), name)
    if len(re.findall(r"[A-Za-z']{4,}", judged)) < 2 and times and times[0].part:
        kept = times[0] if not text[: times[0].at].strip() else None  # the clause's subject
        judged = _without_names(_without_times(text, [w for w in times if w is not kept]), name)
    return judged or _without_times(text, times).strip()


def _without_names(text: str, name: str) -> str:
    for part in name.split():
        text = re.sub(rf"\b{re.escape(part)}\b", " ", text)
    return " ".join(text.split()).strip(" ,.;")
