"""The benchmark runner: `python -m bench NAME [ARGS...]` sets Django up, then runs bench NAME.

Every bench is a module (or package) `bench.NAME` with `main(argv)`, which parses ARGS
with argparse and prints one JSON object. Importing a bench only defines things: the
runner calls `django.setup()` first, so a bench imports models and services at the top.
"""

from __future__ import annotations

import ast
import importlib
import os
import sys
from pathlib import Path

import django

# In the order `make bench` runs them.
BENCHES = (
    "pathfinding",
    "embeddings",
    "retrieval",
    "reflection",
    "engine",
    "cognition",
    "latency",
    "digest",
    "billing",
    "estimate",
    "load",
    "stream",
    "emergence",
    "local_model",
    "evaluation",
    "experiment",
    "replay",
    "rebuild",
    "viewer_fps",
    "generality",
    "stand_in_cpu",
    "observability",
    "pace",
    "play",
)


def _summary(name: str) -> str:
    """The first line of a bench's docstring, read from its source (nothing is imported)."""
    here = Path(__file__).resolve().parent
    source = here / f"{name}.py"
    if not source.exists():
        source = here / name / "__init__.py"
    try:
        doc = ast.get_docstring(ast.parse(source.read_text())) or ""
    except (OSError, SyntaxError):
        return ""
    first = doc.splitlines()[0] if doc else ""
    return first.split(": `python -m bench", 1)[0]  # the command is the usage line


def usage() -> str:
    lines = ["usage: python -m bench NAME [ARGS...]", "", "benchmarks:"]
    lines += [f"  {name:<12} {_summary(name)}" for name in BENCHES]
    lines += ["", "`python -m bench NAME --help` lists a bench's arguments."]
    return "\n".join(lines)


def run(argv: list[str]) -> int:
    """Run the bench argv[0] with the arguments after it; 2 when there is no such bench."""
    if argv[:1] in (["-h"], ["--help"]):
        print(usage())
        return 0
    if not argv or argv[0] not in BENCHES:
        problem = "no benchmark named" if not argv else f"unknown benchmark {argv[0]!r}"
        print(f"python -m bench: {problem}\n\n{usage()}", file=sys.stderr)
        return 2
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "smallville_project.settings")
    django.setup()
    bench = importlib.import_module(f"bench.{argv[0]}")
    bench.main(argv[1:])
    return 0


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
