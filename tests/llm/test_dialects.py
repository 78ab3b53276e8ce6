"""Every task's schema, as the `openai` backend sends it, against the documented rules of
OpenAI's strict structured outputs; the rules are data below, checked by `violations`."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

import agents.tasks  # noqa: F401  (registers the mind's tasks)
import evaluations.judge  # noqa: F401  (registers the judge)
from llm.backends import LLMConfig, ModelRequest, backend_get, message_list
from llm.dialects import LADDERS, grammar_schema, request_options, strict_schema
from llm.errors import ModelRequestRejected
from llm.tasks import PromptTask, task_list
from tests.model_server import ModelServer, error

# OpenAI, "Structured Outputs" guide, section "Supported schemas"
# (https://platform.openai.com/docs/guides/structured-outputs#supported-schemas, read
# 2026-11): the types and keywords strict mode supports, "additionalProperties: false must
# always be set in objects", "all fields must be required" (optional ones as a union with
# null), "root objects must not be anyOf and must be an object", and the limits on size.
# The `name` of a response format: "a-z, A-Z, 0-9, or contain underscores and dashes, with
# a maximum length of 64" (API reference, ResponseFormatJSONSchema).
OPENAI_STRICT: dict[str, Any] = {
    "types": {"string", "number", "boolean", "integer", "object", "array", "null"},
    "keywords": {
        "any": {"type", "description", "enum", "const", "anyOf", "$ref", "$defs"},
        "string": {"pattern", "format"},
        "number": {"multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum"},
        "integer": {"multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum"},
        "object": {"properties", "required", "additionalProperties"},
        "array": {"items", "minItems", "maxItems"},
        "boolean": set(),
        "null": set(),
    },
    "formats": {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6"}
    | {"uuid"},
    "max_properties": 5000,  # object properties in total
    "max_depth": 10,  # levels of nested objects
    "max_string_chars": 120_000,  # property names, definition names, enum and const values
    "max_enum_values": 1000,  # across all enum properties
    "max_enum_chars_past_250": 15_000,  # one string enum of more than 250 values
    "name": r"^[A-Za-z0-9_-]{1,64}$",
}


def violations(schema: dict[str, Any]) -> list[str]:
    """Where `schema` breaks OPENAI_STRICT, as `path: problem` lines (none: it conforms)."""
    rules, found = OPENAI_STRICT, []
    totals = {"properties": 0, "chars": 0, "enum": 0}
    defs = schema.get("$defs", {})
    if schema.get("type") != "object" or "anyOf" in schema:
        found.append("root: not an object")

    def visit(node: dict[str, Any], path: str, depth: int) -> None:
        if "$ref" in node:
            if set(node) != {"$ref"}:
                found.append(f"{path}: $ref beside other keywords")
            name = node["$ref"].rsplit("/", 1)[-1]
            if not node["$ref"].startswith("#/$defs/") or name not in defs:
                found.append(f"{path}: $ref {node['$ref']} does not resolve")
            return
        kinds = node.get("type", [])
        kinds = [kinds] if isinstance(kinds, str) else kinds
        allowed = set(rules["keywords"]["any"])
        for kind in kinds:
            if kind not in rules["types"]:
                found.append(f"{path}: type {kind!r}")
            allowed |= rules["keywords"].get(kind, set())
        if not kinds and "anyOf" not in node and "enum" not in node and "const" not in node:
            found.append(f"{path}: no type")
        found.extend(f"{path}: keyword {key!r}" for key in sorted(set(node) - allowed))
        if "format" in node and node["format"] not in rules["formats"]:
            found.append(f"{path}: format {node['format']!r}")
        if "object" in kinds:
            depth += 1
            if depth > rules["max_depth"]:
                found.append(f"{path}: nested {depth} levels deep")
            fields = node.get("properties", {})
            totals["properties"] += len(fields)
            totals["chars"] += sum(len(name) for name in fields)
            if node.get("additionalProperties") is not False:
                found.append(f"{path}: additionalProperties is not false")
            if sorted(node.get("required", [])) != sorted(fields):
                found.append(f"{path}: not every property required")
            for name, field in fields.items():
                visit(field, f"{path}.{name}", depth)
        if "enum" in node:
            totals["enum"] += len(node["enum"])
            chars = sum(len(str(value)) for value in node["enum"])
            totals["chars"] += chars
            if len(node["enum"]) > 250 and chars > rules["max_enum_chars_past_250"]:
                found.append(f"{path}: enum of {chars} characters")
        if "const" in node:
            totals["chars"] += len(str(node["const"]))
        if isinstance(node.get("items"), dict):
            visit(node["items"], f"{path}[]", depth)
        for i, option in enumerate(node.get("anyOf", [])):
            visit(option, f"{path}|{i}", depth)

    for name, definition in defs.items():
        totals["chars"] += len(name)
        visit(definition, f"$defs.{name}", 0)
    visit({k: v for k, v in schema.items() if k != "$defs"}, "root", 0)
    limits = {
        "properties": "max_properties",
        "chars": "max_string_chars",
        "enum": "max_enum_values",
    }
    for total, limit in limits.items():
        if totals[total] > rules[limit]:
            found.append(f"root: {totals[total]} {total}, more than {rules[limit]}")
    return found


def sent_by_the_backend(fake: ModelServer, task: PromptTask[Any]) -> dict[str, Any]:
    """The `response_format` of the request the `openai` backend sends for `task` (the
    server refuses it: only the request is looked at)."""
    fake.push(error(401))
    backend = backend_get(LLMConfig.from_settings())
    request = ModelRequest(task=task, inputs={}, messages=message_list("Answer."), seed=7)
    result = backend.complete(request)
    assert isinstance(result.failure, ModelRequestRejected)
    body: dict[str, Any] = fake.chat_requests()[-1]["body"]
    return dict(body["response_format"])


@pytest.mark.django_db
def test_every_tasks_schema_as_sent_keeps_openais_strict_rules(
    openai_llm: ModelServer, settings: Any
) -> None:
    settings.SMALLVILLE_LLM_DIALECT = "openai"
    tasks = task_list()
    assert {"importance", "conversation_takeaways", "believability_judge"} <= {
        task.name for task in tasks
    }
    for task in tasks:
        sent = sent_by_the_backend(openai_llm, task)
        assert sent["type"] == "json_schema", task.name
        spec = sent["json_schema"]
        assert re.match(OPENAI_STRICT["name"], spec["name"]), task.name
        assert spec["strict"] is True, task.name
        assert violations(spec["schema"]) == [], task.name


def test_the_rules_catch_what_strict_mode_refuses() -> None:
    """The pydantic schema of a task with an optional field and string lengths breaks them;
    what the backend sends of it does not, and still says what the field may be."""
    takeaways = next(task for task in task_list() if task.name == "conversation_takeaways")
    raw = takeaways.output_schema
    problems = "\n".join(violations(raw))
    assert "root: not every property required" in problems
    assert "keyword 'maxLength'" in problems and "keyword 'title'" in problems
    assert "keyword 'default'" in problems
    sent = strict_schema(raw)
    assert violations(sent) == []
    assert sent["required"] == ["memo", "thought", "commitment"]
    commitment = sent["properties"]["commitment"]["anyOf"]
    assert {"type": "null"} in commitment and {"$ref": "#/$defs/CommitmentOut"} in commitment
    assert sent["$defs"]["CommitmentOut"]["properties"]["start"]["pattern"]
    deep: dict[str, Any] = {"type": "string"}
    for level in range(11):
        deep = {
            "type": "object",
            "properties": {f"l{level}": deep},
            "required": [f"l{level}"],
            "additionalProperties": False,
        }
    assert violations(deep) == ["root.l10.l9.l8.l7.l6.l5.l4.l3.l2.l1: nested 11 levels deep"]


def test_a_field_that_may_not_be_null_stays_optional_and_is_not_sent_strict() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "integer", "default": 3}},
        "required": ["a"],
        "additionalProperties": False,
    }
    spec = request_options("json_schema", name="t", schema=schema)["response_format"]
    assert spec["json_schema"]["strict"] is False
    assert spec["json_schema"]["schema"]["required"] == ["a"]


def test_grammar_servers_get_the_schema_a_grammar_compiles() -> None:
    """vLLM's guided decoding, llama.cpp's servers and Ollama compile the schema to a
    grammar: each gets the simplified one (tests/local_model compiles it with llama.cpp)."""
    summary = next(task for task in task_list() if task.name == "summary")
    expected = grammar_schema(summary.output_schema)
    assert "maxLength" not in json.dumps(expected)
    for dialect in ("llama_cpp_python", "llama_server", "vllm", "ollama"):
        options = request_options(LADDERS[dialect][0], name="summary", schema=summary.output_schema)
        sent = options.get("extra_body", {}).get("guided_json") or options["response_format"].get(
            "schema"
        )
        sent = sent or options["response_format"]["json_schema"]["schema"]
        assert sent == expected, dialect
