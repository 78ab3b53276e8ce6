"""No app imports another's private names: a name with a leading underscore is
its module's own, and one app reaching into another's breaks when that module changes."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APPS = ("world", "llm", "memories", "agents", "runtime", "evaluations", "api", "web")


def private_imports(tree: ast.AST, app: str) -> list[tuple[int, str]]:
    """(line, module.name) of each `from <another app> import _name` in `tree`."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom) or node.level or not node.module:
            continue
        source_app = node.module.split(".")[0]
        if source_app == app or source_app not in APPS:
            continue
        found += [(node.lineno, f"{node.module}.{a.name}") for a in node.names if a.name[0] == "_"]
    return found


def test_no_app_imports_another_apps_private_names() -> None:
    found = []
    for app in APPS:
        for path in (ROOT / app).rglob("*.py"):
            if "migrations" not in path.parts:
                tree = ast.parse(path.read_text(), str(path))
                found += [
                    f"{path.relative_to(ROOT)}:{line} {name}"
                    for line, name in private_imports(tree, app)
                ]
    assert found == []


def test_a_private_import_from_another_app_is_seen_and_ones_own_is_not() -> None:
    tree = ast.parse(
        "from world.selectors import _hidden, shown\n"
        "from runtime.engine import _own\n"
        "from . import _relative\n"
    )
    assert private_imports(tree, "runtime") == [(1, "world.selectors._hidden")]
