"""Offline dialogue: no line echoes the partner's line before it, and news someone told of
themselves is passed on with pronouns, while the listener keeps it with the name. People,
places and news made up here."""

from __future__ import annotations

import random
import re
from itertools import pairwise

import pytest

from agents.offline.news import takeaways
from agents.offline.talk import converse_line

NELL, ORIN = "Nell Quarry", "Orin Tasker"
MEMORIES = [
    [],
    ["Nell Quarry likes a strong cup of tea in the morning"],
    ["This is Nell Quarry's plan for Monday May 06: 06:00 wake up; 08:00 open the stall"],
    ["This is Orin Tasker's plan for Monday May 06: 06:00 wake up; 08:00 open the stall"],
]


def _sentences(line: str) -> set[str]:
    return {s.strip() for s in re.split(r"(?<=[.!?])\s+", line) if len(s.split()) >= 4}


def _talk(memories: dict[str, list[str]], time: str, seed: int) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    lines: list[tuple[str, str]] = []
    speakers = [(NELL, ORIN), (ORIN, NELL)]
    for turn in range(8):
        speaker, listener = speakers[turn % 2]
        inputs = {
            "speaker": speaker,
            "listener": listener,
            "time": time,
            "dialogue": [f"{who}: {text}" for who, text in lines] or ["(nothing yet)"],
            "memories": [f"{i}. {m}" for i, m in enumerate(memories[speaker], 1)] or ["none"],
        }
        text, end = converse_line(inputs, rng)
        lines.append((speaker, text))
        if end:
            break
    return lines


@pytest.mark.django_db
@pytest.mark.parametrize("time", ["08:30", "14:10", "20:45"])
@pytest.mark.parametrize("nell", range(len(MEMORIES)))
@pytest.mark.parametrize("orin", range(len(MEMORIES)))
def test_no_line_repeats_the_partners_line_before_it(time: str, nell: int, orin: int) -> None:
    for seed in range(6):
        lines = _talk({NELL: MEMORIES[nell], ORIN: MEMORIES[orin]}, time, seed)
        for (_, before), (_, line) in pairwise(lines):
            assert line != before and not _sentences(line) & _sentences(before), lines


# (who told it, what they told of themselves as the listener kept it, the name-free words
# a pronoun line keeps, what the next listener keeps)
TOLD = [
    (
        "Pell Ostrander",
        "Pell Ostrander has known Pell Ostrander's neighbour since school",
        "known their neighbour since school",
        "Pell Ostrander has known Pell Ostrander's neighbour since school",
    ),
    (
        "Ivy Dunmore",
        "Ivy Dunmore will open a pottery stall at the quay on Friday",
        "they will open a pottery stall at the quay on Friday",
        "Ivy Dunmore will open a pottery stall at the quay on Friday",
    ),
    (
        "Cass Whitlow",
        "Cass Whitlow thinks his boat needs paint and Cass Whitlow wants help with it",
        "he thinks his boat needs paint and he wants help",
        "Cass Whitlow thinks Cass Whitlow's boat needs paint and Cass Whitlow wants help",
    ),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("teller", "fact", "spoken", "kept"), TOLD)
def test_reported_speech_uses_pronouns_and_the_listener_keeps_the_name(
    teller: str, fact: str, spoken: str, kept: str
) -> None:
    memory = f"{fact} ({teller} told me)."
    lines = _talk({NELL: [memory], ORIN: []}, "10:00", 0)
    said = next(text for who, text in lines if who == NELL and "told me" in text)
    assert said.count(teller) == 1 and spoken in said, said
    inputs = {
        "agent_name": ORIN,
        "partner": NELL,
        "dialogue": [f"{who}: {text}" for who, text in lines],
        "places": "Quay row: quay",
        "date": "2024-05-06",
        "relationship": f"{ORIN} knows {NELL}",
        "summary": f"{ORIN} mends nets.",
    }
    memo, _, _ = takeaways(inputs, random.Random(0))
    # who told it, and from whom that one had it: second-hand news weighs less
    assert kept in memo and f"({NELL} told me, having heard it from {teller})" in memo, memo
