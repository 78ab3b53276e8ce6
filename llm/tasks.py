"""Prompt tasks: a template file, a pydantic output schema and an offline policy, by name.

A template is a text file beside the code that registers its task (the mind's:
`agents/tasks/<task>/template.txt`), kept under version control. Leading lines that
start with `#` document it and are not sent. The rest is rendered with
`string.Template`: `${name}` is a named input (`$$` is a literal dollar sign), and the
inputs must match the placeholders exactly, so a typo fails loudly instead of sending a
prompt with a hole in it.

The offline policy is the `offline` backend's stand-in for the model: a deterministic
function of the inputs and a `random.Random` seeded from (simulation seed, task, inputs).
"""

from __future__ import annotations

import hashlib
import json
import random
import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from .errors import TaskInputError, UnknownTask

OutputT = TypeVar("OutputT", bound=BaseModel)
Inputs = Mapping[str, object]


@dataclass(frozen=True)
class PromptTask(Generic[OutputT]):
    """One kind of question the agents ask a language model."""

    name: str
    template: Path  # the template file, beside the task's registration
    output: type[OutputT]
    offline: Callable[[Inputs, random.Random], OutputT]
    description: str = ""
    # What the schema cannot say, checked after parsing against the inputs: "" when the
    # output will do, else the problem (a model's reply is then re-asked with it).
    check: Callable[[Inputs, OutputT], str] | None = None
    # A rule that mends a parsed reply before the check, where the reference
    # implementation mends it too (hours left empty are slept): a small model's reply
    # keeps its content instead of falling back whole.
    repair: Callable[[Inputs, OutputT], OutputT] | None = None

    def problem_with(self, inputs: Inputs, output: OutputT) -> str:
        return self.check(inputs, output) if self.check else ""

    def repaired(self, inputs: Inputs, output: OutputT) -> OutputT:
        return self.repair(inputs, output) if self.repair else output

    @cached_property
    def output_schema(self) -> dict[str, Any]:
        """The output's JSON schema, made once: every request to a model carries it."""
        return self.output.model_json_schema()

    @cached_property
    def template_text(self) -> str:
        lines = self.template.read_text(encoding="utf-8").splitlines()
        while lines and lines[0].startswith("#"):
            lines.pop(0)
        return "\n".join(lines).strip() + "\n"

    @cached_property
    def input_names(self) -> frozenset[str]:
        return frozenset(string.Template(self.template_text).get_identifiers())

    def render(self, inputs: Inputs) -> str:
        """The prompt for these inputs; raises TaskInputError unless they match exactly."""
        given = set(inputs)
        missing, extra = self.input_names - given, given - self.input_names
        if missing or extra:
            raise TaskInputError(
                f"task {self.name!r}: missing inputs {sorted(missing)}, unknown {sorted(extra)}"
            )
        values = {key: _text(value) for key, value in inputs.items()}
        return string.Template(self.template_text).substitute(values)

    def seed(self, *, simulation_seed: int, inputs: Inputs) -> int:
        """A 63-bit seed stable across processes for (simulation seed, task, inputs)."""
        canonical = json.dumps({key: _text(value) for key, value in inputs.items()}, sort_keys=True)
        digest = hashlib.sha256(f"{simulation_seed}\0{self.name}\0{canonical}".encode()).digest()
        return int.from_bytes(digest[:8], "big") >> 1

    def run_offline(self, *, seed: int, inputs: Inputs) -> OutputT:
        return self.offline(inputs, random.Random(seed))


def _text(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)):
        return "\n".join(_text(item) for item in value)
    return str(value)


_registry: dict[str, PromptTask[Any]] = {}


def task_register(task: PromptTask[OutputT]) -> PromptTask[OutputT]:
    """Register a task at import time; its template must exist and its name be new."""
    if task.name in _registry and _registry[task.name] is not task:
        raise ValueError(f"prompt task {task.name!r} is already registered")
    if not task.template.is_file():
        raise FileNotFoundError(f"prompt task {task.name!r}: no template {task.template}")
    _registry[task.name] = task
    return task


def task_get(name: str) -> PromptTask[Any]:
    try:
        return _registry[name]
    except KeyError:
        raise UnknownTask(name) from None


def task_list() -> list[PromptTask[Any]]:
    return sorted(_registry.values(), key=lambda task: task.name)


_TOKENS_PER_CHAR = 1 / 3  # English in a BPE vocabulary, with room to spare
_MAX_OUTPUT_TOKENS = 1536


@cache
def output_token_limit(task: PromptTask[Any]) -> int:
    """The reply's token limit for `task`, sized to its output schema: the longest reply
    the schema allows (string bounds in characters, list bounds in items), with room for
    the JSON around it. A model that rambles is cut off here rather than at the timeout."""
    schema = task.output_schema
    defs = schema.get("$defs", {})

    def size(node: Any) -> float:
        if "$ref" in node:
            return size(defs[node["$ref"].rsplit("/", 1)[-1]])
        if "anyOf" in node:
            return max(size(option) for option in node["anyOf"])
        kind = node.get("type")
        if kind == "string":
            return 4 + node.get("maxLength", 200) * _TOKENS_PER_CHAR
        if kind == "array":
            return 2 + node.get("maxItems", 8) * (2 + size(node.get("items", {})))
        if kind == "object":
            fields = node.get("properties", {})
            return 2 + sum(4 + len(name) * _TOKENS_PER_CHAR + size(f) for name, f in fields.items())
        return 4  # a number, a boolean, null

    return min(_MAX_OUTPUT_TOKENS, max(32, round(size(schema) * 1.2)))
