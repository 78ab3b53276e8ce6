"""The stand-in's memo of heard news: written and read back whole, first-hand or not."""

from __future__ import annotations

import pytest

from agents.offline.memo import fact_and_source, firsthand, memo

FACT = "The Lantern Guild is holding its night market on the Old Quay on Friday"


@pytest.mark.parametrize(
    ("origin", "kept"),
    [
        ("", f"{FACT} (Wyn Harrow told me)."),
        ("Odo Brack", f"{FACT} (Wyn Harrow told me, having heard it from Odo Brack)."),
        ("Wyn Harrow", f"{FACT} (Wyn Harrow told me)."),  # its own news, passed back
    ],
)
def test_a_memo_says_who_told_it_and_reads_back_to_its_fact(origin: str, kept: str) -> None:
    written = memo(f"{FACT}.", "Wyn Harrow", origin)
    assert written == kept
    assert fact_and_source(written) == (FACT, "Wyn Harrow")
    assert firsthand(written) == (
        f"{FACT} (Wyn Harrow told me).",
        bool(origin) and origin != "Wyn Harrow",
    )


def test_a_memory_that_is_no_memo_is_its_own_fact() -> None:
    thought = "I should fix the gate before the market (a note to self)."
    assert fact_and_source(thought) == (thought.rstrip("."), "")
    assert firsthand(thought) == (thought, False)
