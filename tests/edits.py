"""Helpers for tests of documents: a copy with one field, named by its dotted path, changed."""

from __future__ import annotations

import copy
from typing import Any


def with_field(data: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A deep copy of `data` with the field at `path` (e.g. `residents.0.age`) set."""
    data = copy.deepcopy(data)
    *parents, last = path.split(".")
    here: Any = data
    for part in parents:
        here = here[int(part)] if isinstance(here, list) else here[part]
    if isinstance(here, list):
        here[int(last)] = value
    else:
        here[last] = value
    return data
