"""The docs name what exists: every path into the code that README.md, docs/ or
a docstring mentions is there, and so is every section they name; every environment
variable the code reads, and every setting a doc names, is in the one list of settings,
docs/configuration.md."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APPS = ("world", "llm", "memories", "agents", "runtime", "evaluations", "api", "web")
TOP = (*APPS, "smallville_project", "kernel", "bench", "tests", "docs")
# A path into one of the top folders, e.g. runtime/engine/choice.py or agents/offline/.
FOLDERS = "|".join(TOP)
PATH = re.compile(rf"(?<![\w/.:-])((?:{FOLDERS})/(?:[\w.*-]+/)*[\w.*-]*)")
# What runs write, git-ignored: named in the docs as where to look, not stored.
WRITTEN = ("bench/results/", "test-artifacts/")
# Read directly, or strictly through smallville_project/environment.py (env_bool("DEBUG", ...)).
ENV = re.compile(r"""(?:os\.environ(?:\.get)?[(\[]|\benv_[a-z_]+\()\s*["']([A-Z][A-Z0-9_]+)["']""")
# A section named by its doc and title: docs/architecture.md, "The seams".
SECTION = re.compile(r'(docs/[\w-]+\.md)[,:;]?\s+"([^"]+)"')
SETTING = re.compile(r"\bSMALLVILLE_[A-Z0-9_]*[A-Z0-9]\b")


def code_files() -> Iterator[Path]:
    for top in (*APPS, "smallville_project", "kernel", "bench"):
        for path in (ROOT / top).rglob("*.py"):
            if "migrations" not in path.parts:
                yield path


def docstrings(path: Path) -> Iterator[str]:
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            text = ast.get_docstring(node)
            if text:
                yield text


def texts() -> Iterator[tuple[str, str]]:
    """(where, text) of README.md, each doc and each docstring of the code."""
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        yield doc.relative_to(ROOT).as_posix(), doc.read_text()
    for path in code_files():
        for text in docstrings(path):
            yield path.relative_to(ROOT).as_posix(), text


def exists(mentioned: str) -> bool:
    path = mentioned.rstrip(".")
    if path.startswith(WRITTEN) or list(ROOT.glob(path)):
        return True
    # A template named by its path inside a templates folder (web/landing.html).
    return any((templates / path).exists() for templates in ROOT.glob("*/**/templates"))


def test_every_path_mentioned_exists() -> None:
    missing = [
        f"{where}: {found}"
        for where, text in texts()
        for found in PATH.findall(text)
        if not exists(found)
    ]
    assert missing == []


def test_every_environment_variable_is_documented() -> None:
    listed = (ROOT / "docs" / "configuration.md").read_text()
    read = {name for path in code_files() for name in ENV.findall(path.read_text())}
    # Set by the code, not read from a user (bench/browser.py lifts the ORM's async check).
    read -= {"DJANGO_SETTINGS_MODULE", "PGAPPNAME", "DJANGO_ALLOW_ASYNC_UNSAFE"}
    assert read, "no environment variable found: the pattern is stale"
    assert sorted(name for name in read if f"`{name}`" not in listed) == []


def test_every_setting_named_is_documented() -> None:
    listed = (ROOT / "docs" / "configuration.md").read_text()
    named = {name for _, text in texts() for name in SETTING.findall(text)}
    named |= {name for path in code_files() for name in SETTING.findall(path.read_text())}
    assert sorted(name for name in named if f"`{name}`" not in listed) == []


def test_every_section_named_exists() -> None:
    missing = []
    for where, text in texts():
        for doc, title in SECTION.findall(text):
            lines = (ROOT / doc).read_text().splitlines() if (ROOT / doc).exists() else []
            heads = [" ".join(line.lstrip("#").split()) for line in lines if line[:1] == "#"]
            if not any(" ".join(title.split()) in head for head in heads):
                missing.append(f"{where}: {doc}, {title!r}")
    assert missing == []
