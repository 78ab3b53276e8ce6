"""A newcomer's name: text a reader can tell apart from every resident's name.

Names are normalised with Unicode NFKC (full-width and compatibility forms become the
plain letters) and refused when they hold an invisible or control character (categories
Cc, Cf, Co, Cn, Zl, Zp: a zero-width space or a right-to-left override would make two
names that print alike differ). A name's letters must come from one script, or from the
combinations a name in Chinese, Japanese or Korean writing uses with Latin (Unicode's
"highly restrictive" level, UTS #39): a Cyrillic a (U+0430) inside a Latin name is refused.
Names are then compared by a skeleton: case-folded, with the Cyrillic and Greek letters
that look like Latin ones read as those, so a name written wholly in look-alike letters
is taken as the name it looks like.
"""

from __future__ import annotations

import unicodedata

from runtime.controls.common import ControlRefused

_INVISIBLE = {"Cc", "Cf", "Co", "Cn", "Zl", "Zp"}
# Scripts that may share a name (UTS #39 "highly restrictive"), besides a script alone.
_ALLOWED_MIXES = (
    frozenset({"LATIN", "CJK", "HIRAGANA", "KATAKANA"}),
    frozenset({"LATIN", "CJK", "BOPOMOFO"}),
    frozenset({"LATIN", "CJK", "HANGUL"}),
)
# Cyrillic and Greek letters that print as a Latin letter (from Unicode's confusables).
_LOOK_ALIKES = str.maketrans(
    "АВЕКМНОРСТХУІЈЅаеорсухіјѕһԁԛԝӏΑΒΕΖΗΙΚΜΝΟΡΤΥΧαοριυνχκ",
    "ABEKMHOPCTXYIJSaeopcyxijshdqwlABEZHIKMNOPTYXaopiuvxk",
)


class NameRefused(ControlRefused):
    """The name cannot be a resident's (reported under the field `name`)."""

    field = "name"


def name_normalised(name: str) -> str:
    """`name` in NFKC without surrounding space; NameRefused if it holds an invisible
    character or mixes scripts."""
    name = unicodedata.normalize("NFKC", name).strip()
    for char in name:
        if unicodedata.category(char) in _INVISIBLE:
            raise NameRefused(
                f"the name holds an invisible or control character (U+{ord(char):04X}); "
                "names are plain text"
            )
    scripts = {_script(char) for char in name if unicodedata.category(char).startswith("L")}
    if len(scripts) > 1 and not any(scripts <= mix for mix in _ALLOWED_MIXES):
        raise NameRefused(
            f"{name!r} mixes the scripts {', '.join(sorted(scripts))}: write a name in one "
            "(look-alike letters of another script make two names print alike)"
        )
    return name


def name_skeleton(name: str) -> str:
    """What `name` looks like: equal skeletons print alike (case and look-alikes aside)."""
    name = unicodedata.normalize("NFKC", name).translate(_LOOK_ALIKES)
    return name.casefold().translate(_LOOK_ALIKES)


def _script(letter: str) -> str:
    """The script of a letter, by the first word of its Unicode name (LATIN, CYRILLIC,
    CJK...); letters without a name count as their own."""
    return unicodedata.name(letter, f"U+{ord(letter):04X}").split(" ", 1)[0]
