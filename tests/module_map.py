"""The module-to-test map: which test modules import each domain module.

A domain module is a module of the apps below (not migrations, not apps.py); it has
behaviour when it defines a function or a class with methods. A test module imports it
with `import a.b`, `from a.b import name` or `from a import b` (b a submodule);
`call_command("name")` counts as importing the management command of that name.
`python -m tests.module_map` prints the map (docs/testing.md holds a copy).
"""

from __future__ import annotations

import ast
import functools
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APPS = (
    "world",
    "llm",
    "memories",
    "agents",
    "runtime",
    "evaluations",
    "experiments",
    "integration",
    "api",
    "web",
    "observability",
    "kernel",
)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def domain_modules() -> dict[str, Path]:
    """Every module of the apps, by dotted name."""
    found: dict[str, Path] = {}
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            if "migrations" in path.parts or path.name == "apps.py":
                continue
            found[_module_name(path)] = path
    return found


def has_behaviour(path: Path) -> bool:
    """A function, or a class with a method, anywhere in the module's top level."""
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            return True
        if isinstance(node, ast.ClassDef) and any(
            isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) for item in node.body
        ):
            return True
    return False


def test_modules() -> dict[str, Path]:
    """Every Python module under tests/, by dotted name."""
    return {_module_name(path): path for path in sorted((ROOT / "tests").rglob("*.py"))}


def _statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement, nested ones too (imports inside functions), not expressions."""
    for node in body:
        yield node
        for name in ("body", "orelse", "finalbody", "handlers"):
            yield from _statements(getattr(node, name, []))


def _imported(source: str, known: set[str], commands: dict[str, str]) -> Iterator[str]:
    tree = ast.parse(source)
    for node in _statements(tree.body):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module
            for alias in node.names:
                if f"{node.module}.{alias.name}" in known:
                    yield f"{node.module}.{alias.name}"
    if "call_command(" not in source:
        return
    for call in ast.walk(tree):
        if (
            isinstance(call, ast.Call)
            and getattr(call.func, "id", getattr(call.func, "attr", "")) == "call_command"
            and call.args
            and isinstance(call.args[0], ast.Constant)
            and call.args[0].value in commands
        ):
            yield commands[call.args[0].value]


@functools.cache
def module_map() -> dict[str, list[str]]:
    """Each domain module with behaviour -> the test modules that import it (maybe none)."""
    modules = domain_modules()
    known = set(modules)
    commands = {name.rsplit(".", 1)[1]: name for name in known if ".management.commands." in name}
    importers: dict[str, set[str]] = {name: set() for name in modules}
    for test_name, path in test_modules().items():
        for imported in _imported(path.read_text(), known, commands):
            if imported in importers:
                importers[imported].add(test_name)
    return {name: sorted(importers[name]) for name, path in modules.items() if has_behaviour(path)}


def render(mapping: dict[str, list[str]], exceptions: dict[str, str]) -> str:
    """The map as a Markdown table: each module's test modules, or why it has none."""
    lines = ["| module | test modules (tests.…), or why none |", "|---|---|"]
    for name, tests in mapping.items():
        shown = ", ".join(t.removeprefix("tests.") for t in tests)
        lines.append(f"| `{name}` | {shown or '*' + exceptions.get(name, 'NONE') + '*'} |")
    return "\n".join(lines)


if __name__ == "__main__":
    from tests.test_module_map import EXCEPTIONS

    sys.stdout.write(render(module_map(), EXCEPTIONS) + "\n")
