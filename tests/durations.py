"""The tests' expected seconds, for the parallel run's scheduler (tests/parallel.py): the
longest units of work start first, so the run does not end waiting on one long test handed
out last. `tests/durations.json` holds the tests that took more than `SLOW` seconds in a
measured serial run; any other counts `OTHER`.

`python -m tests.durations JUNIT.xml` writes it from a run's JUnit report
(`make pytest PYTEST_ADDOPTS=--junitxml=JUNIT.xml`); a stale entry only orders the queue
less well, never changes what runs."""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ElementTree
from functools import cache
from pathlib import Path

FILE = Path(__file__).resolve().parent / "durations.json"
SLOW = 2.0
OTHER = 0.5


def nodeid(classname: str, name: str) -> str:
    """A JUnit test case's pytest node id (`tests.api.test_x` + `Case` -> path::Case::name)."""
    parts = classname.split(".")
    for split in range(len(parts), 0, -1):
        module = Path(*parts[:split]).with_suffix(".py")
        if (FILE.parent.parent / module).exists():
            return "::".join([module.as_posix(), *parts[split:], name])
    return f"{classname}::{name}"


def from_junit(path: Path) -> dict[str, float]:
    cases = ElementTree.parse(path).getroot().iter("testcase")
    found = {
        nodeid(c.get("classname", ""), c.get("name", "")): float(c.get("time", 0)) for c in cases
    }
    return {k: round(v, 1) for k, v in sorted(found.items()) if v > SLOW}


@cache
def expected() -> dict[str, float]:
    try:
        loaded: dict[str, float] = json.loads(FILE.read_text())
    except (OSError, ValueError):
        return {}
    return loaded


def seconds(nodeids: list[str]) -> float:
    known = expected()
    return sum(known.get(n, OTHER) for n in nodeids)


if __name__ == "__main__":
    measured = from_junit(Path(sys.argv[1]))
    FILE.write_text(json.dumps(measured, indent=1, sort_keys=True) + "\n")
    print(f"{FILE}: {len(measured)} tests over {SLOW} s, {sum(measured.values()):.0f} s in all")
