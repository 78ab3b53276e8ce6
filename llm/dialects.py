"""Structured output as each OpenAI-compatible server spells it: the dialects.

Servers that call themselves OpenAI-compatible differ in how they take a JSON schema:

- `openai` (OpenAI, Azure, LM Studio): `response_format: {type: json_schema, ...}`;
- `llama_cpp_python` (`python -m llama_cpp.server`): `response_format: {type:
  json_object, schema: {...}}`, compiled to a grammar;
- `llama_server` (llama.cpp's `llama-server`): `response_format: {type: json_schema}`,
  compiled to a grammar;
- `vllm` (vLLM): `extra_body: {guided_json: {...}}`;
- `ollama` (Ollama's `/v1`): `response_format: {type: json_schema, ...}`, compiled to a
  grammar (its `format`).

Each dialect is a ladder of request formats, tried from the top: when a server refuses
one (HTTP 400/422, or a 500 that names the response format, as llama-cpp-python answers
`json_schema`), the backend steps down a rung (`json_object`: JSON without a schema;
`text`: the prompt alone) and remembers the rung per server. The dialect itself comes
from SMALLVILLE_LLM_DIALECT, or, with `auto`, from a probe of `GET /models` on first
contact (`owned_by` names the server).

OpenAI's strict mode takes a subset of JSON Schema (every object closed, every property
required, no string lengths): the schema sent to it is `strict_schema(...)`. A grammar
engine compiles the schema into a grammar, and long bounds (a `maxLength` of
600 becomes 600 nested optional rules) make grammars that llama.cpp fails to parse or
crashes on; the schema sent to one is `grammar_schema(...)`: types, required fields,
enums, patterns and small bounds kept, long length and count bounds dropped. The reply
is still validated against the full pydantic model after parsing, so the dropped
bounds are checked all the same.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

DIALECTS = ("openai", "llama_cpp_python", "llama_server", "vllm", "ollama")

# The rungs: each dialect's structured format first, then plain JSON, then text.
LADDERS: dict[str, tuple[str, ...]] = {
    "openai": ("json_schema", "json_object", "text"),
    "llama_cpp_python": ("json_object_schema", "json_object", "text"),
    "llama_server": ("json_schema_grammar", "json_object", "text"),
    "vllm": ("guided_json", "json_object", "text"),
    "ollama": ("json_schema_grammar", "json_object", "text"),
}

# What `GET /models` says of the server in `owned_by`, lower-cased.
_OWNERS = {
    "llamacpp": "llama_server",
    "vllm": "vllm",
    "ollama": "ollama",
    "library": "ollama",
    "openai": "openai",
    "system": "openai",
}
_GRAMMAR_DROPPED = frozenset({"format", "title"})
# Bounds a grammar spells out one repetition at a time: kept while small.
_GRAMMAR_BOUNDS = {"maxLength": 100, "minLength": 100, "maxItems": 16, "minItems": 16}


def dialect_from_models(models: list[dict[str, Any]]) -> str:
    """The dialect a server's `GET /models` answer points to. llama-cpp-python lists its
    models as `owned_by: "me"` with a `.gguf` path for an id."""
    for model in models:
        owner = str(model.get("owned_by", "")).lower()
        if owner in _OWNERS:
            return _OWNERS[owner]
        if owner == "me" or str(model.get("id", "")).endswith(".gguf"):
            return "llama_cpp_python"
    return "openai"


def grammar_schema(schema: Any) -> Any:
    """`schema` as a grammar engine can compile it: long bounds on length and count dropped
    (checked after parsing instead), `$defs` inlined; types, required fields, enums,
    patterns (an HH:MM time) and small bounds kept, so the model cannot break them."""
    defs = schema.get("$defs", {}) if isinstance(schema, dict) else {}

    def simplify(node: Any) -> Any:
        if isinstance(node, list):
            return [simplify(item) for item in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            return simplify(defs[node["$ref"].rsplit("/", 1)[-1]])
        low, high = node.get("minimum"), node.get("maximum")
        if node.get("type") == "integer" and isinstance(low, int) and isinstance(high, int):
            values = list(range(low, high + 1))
            if len(values) <= 25:  # a small range: the choice of its values
                return {"type": "integer", "enum": values}
        if isinstance(node.get("pattern"), str):  # llama.cpp's converter mangles \d
            node = {**node, "pattern": node["pattern"].replace("\\d", "[0-9]")}
        return {
            key: simplify(value)
            for key, value in node.items()
            if key not in _GRAMMAR_DROPPED
            and key != "$defs"
            and not (key in _GRAMMAR_BOUNDS and value > _GRAMMAR_BOUNDS[key])
        }

    return simplify(schema)


# What OpenAI's strict structured outputs take ("Supported schemas" in its Structured
# Outputs guide): these keywords, every object closed and every property required.
STRICT_KEYWORDS = frozenset(
    {
        *("type", "description", "enum", "const", "anyOf", "$ref", "$defs"),
        *("properties", "required", "additionalProperties", "items", "minItems", "maxItems"),
        *("pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"),
        "multipleOf",
    }
)


def _nullable(schema: Any) -> bool:
    kind = schema.get("type")
    return (
        kind == "null"
        or (isinstance(kind, list) and "null" in kind)
        or any(_nullable(option) for option in schema.get("anyOf", []))
    )


def strict_schema(schema: Any) -> Any:
    """`schema` as OpenAI's strict mode takes it: keywords outside its subset dropped
    (string lengths, titles, defaults: the full model checks them after parsing), a `$ref`
    beside other keywords inlined, and an optional property that may be null made
    required (null then stands for its absence). One that may not be null stays optional,
    and the schema is then sent without `strict` (`strict_compatible`)."""
    defs = schema.get("$defs", {}) if isinstance(schema, dict) else {}

    def convert(node: Any) -> Any:
        if isinstance(node, list):
            return [convert(item) for item in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node and len(node) > 1:
            target = defs[node["$ref"].rsplit("/", 1)[-1]]
            node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        out = {
            key: convert(value)
            for key, value in node.items()
            if key in STRICT_KEYWORDS and key not in ("properties", "$defs")
        }
        if "$defs" in node:
            out["$defs"] = {name: convert(value) for name, value in node["$defs"].items()}
        if isinstance(node.get("properties"), dict):
            out["properties"] = {k: convert(v) for k, v in node["properties"].items()}
            required = set(node.get("required", []))
            optional = [k for k in node["properties"] if k not in required]
            if all(_nullable(node["properties"][k]) for k in optional):
                out["required"] = list(node["properties"])
        return out

    return convert(schema)


def strict_compatible(schema: object) -> bool:
    """Whether OpenAI's strict mode takes this schema: every object closed, every field
    required. Strict mode rejects other schemas outright; without it the schema still
    guides the model and the reply is validated here all the same."""
    if isinstance(schema, list):
        return all(strict_compatible(item) for item in schema)
    if not isinstance(schema, dict):
        return True
    if "properties" in schema and (
        schema.get("additionalProperties") is not False
        or set(schema.get("required", [])) != set(schema["properties"])
    ):
        return False
    return all(strict_compatible(value) for value in schema.values())


def _json_schema(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": name, "schema": schema, "strict": strict_compatible(schema)},
        }
    }


_REQUEST: dict[str, Callable[[str, dict[str, Any]], dict[str, Any]]] = {
    "json_schema": lambda name, schema: _json_schema(name, strict_schema(schema)),
    "json_schema_grammar": lambda name, schema: _json_schema(name, grammar_schema(schema)),
    "json_object_schema": lambda _name, schema: {
        "response_format": {"type": "json_object", "schema": grammar_schema(schema)}
    },
    "guided_json": lambda _name, schema: {"extra_body": {"guided_json": grammar_schema(schema)}},
    "json_object": lambda _name, _schema: {"response_format": {"type": "json_object"}},
    "text": lambda _name, _schema: {},
}


def request_options(rung: str, *, name: str, schema: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments of `chat.completions.create` for one rung of a ladder."""
    return _REQUEST[rung](name, schema)


def ladder_for(dialect: str, start: str = "") -> tuple[str, ...]:
    """The rungs of `dialect` from `start` (its top when not on it)."""
    ladder = LADDERS[dialect]
    return ladder[ladder.index(start) :] if start in ladder else ladder


def refuses_format(status: int | None, message: str) -> bool:
    """Whether an error answer means "not this response format": a 400/422, or a 500 that
    names it (llama-cpp-python answers `json_schema` with "Input should be 'text' or
    'json_object'" and status 500). A prompt longer than the context window is a 400 too,
    and no other format would fit it: that is not a refusal of the format."""
    text = message.lower()
    if any(w in text for w in _OVERFLOW_WORDS):
        return False
    if status in (400, 422):
        return True
    return status == 500 and any(w in text for w in ("response_format", "json_object", "schema"))


# How servers word a prompt too long for the window: llama-cpp-python ("Requested tokens
# (N) exceed context window of M"), llama-server ("exceeds the available context size"),
# OpenAI and vLLM ("maximum context length").
_OVERFLOW_WORDS = ("context window", "context size", "context length", "context_length")
