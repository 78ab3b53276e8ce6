"""A newcomer's name (runtime/controls/names.py): plain text, one script, told apart by
what it looks like."""

from __future__ import annotations

import pytest

from runtime.controls.names import NameRefused, name_normalised, name_skeleton


def test_a_name_is_normalised_and_may_mix_latin_with_cjk() -> None:
    full_width = "\uff2f\uff54\uff54\uff49\uff4c\uff49\uff45"
    assert name_normalised(f"  {full_width} Brandt ") == "Ottilie Brandt"
    assert name_normalised("Tamsin 山田") == "Tamsin 山田"


@pytest.mark.parametrize(
    "name",
    ["Otti\u200blie", "Ott\u202eilie", "Ott\u0456lie Brandt"],
    ids=["zero-width-space", "right-to-left-override", "cyrillic-i-in-latin"],
)
def test_an_invisible_character_or_a_mix_of_scripts_is_refused(name: str) -> None:
    with pytest.raises(NameRefused) as refused:
        name_normalised(name)
    assert refused.value.field == "name"


def test_names_that_print_alike_share_a_skeleton() -> None:
    assert name_skeleton("\u041e\u0422\u0422\u041e") == name_skeleton("otto")  # Cyrillic
    assert name_skeleton("Ottilie") != name_skeleton("Ottilia")
