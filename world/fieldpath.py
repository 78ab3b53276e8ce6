"""Where in a request a problem is: the one path syntax of every field at fault.

Names joined by dots, 0-based list indexes in brackets, a key that is no name quoted in
brackets: `residents[0].seed_memories[2]`, `legend["#"].arena`. Every check that reports
a field (bases, towns, configs, experiments, measures) and the API's errors use it."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# A pydantic location's tag of a union member or validator ("function-after[...]",
# "list[int]", "constrained-int", "RetrievalWeights"): not a field.
_TAG = re.compile(r"^[A-Z]|[\[\]-]")
_SCALARS = frozenset({"int", "str", "float", "bool", "none", "dict", "list"})


def field_path(*parts: str | int) -> str:
    """The path of `parts` (names and indexes), e.g. ("rows", 3) -> "rows[3]"."""
    path = ""
    for part in parts:
        if isinstance(part, int):
            path += f"[{part}]"
        elif _NAME.match(part):
            path += f".{part}" if path else part
        else:
            path += f"[{json.dumps(part)}]"
    return path


def path_join(path: str, rest: str) -> str:
    """Two paths as one: ("variants[1]", "config.seed") -> "variants[1].config.seed"."""
    if not path or not rest:
        return path or rest
    return path + rest if rest.startswith("[") else f"{path}.{rest}"


def loc_path(loc: Sequence[int | str], *, skip: Iterable[str] = (), keep_last: bool = False) -> str:
    """The path of a pydantic error's location, without the tags of unions' members and
    validators and the names in `skip` (an alias's Python name); `keep_last` keeps the
    last part whatever it is (an unknown key the caller sent)."""
    skipped = set(skip)
    kept = [
        part
        for number, part in enumerate(loc)
        if isinstance(part, int)
        or (keep_last and number == len(loc) - 1)
        or (part not in skipped and part not in _SCALARS and not _TAG.search(part))
    ]
    return field_path(*kept)


def loc_errors(
    errors: Iterable[Mapping[str, Any]], *, prefix: str = "", skip: Iterable[str] = ()
) -> dict[str, list[str]]:
    """Every error of a pydantic ValidationError (`exc.errors()`) by its field's path under
    `prefix` (an error of the whole document: under `prefix`)."""
    by_field: dict[str, list[str]] = {}
    for error in errors:
        unknown = error.get("type") == "extra_forbidden"
        where = path_join(prefix, loc_path(error["loc"], skip=skip, keep_last=unknown))
        messages = by_field.setdefault(where, [])
        if error["msg"] not in messages:
            messages.append(error["msg"])
    return by_field
