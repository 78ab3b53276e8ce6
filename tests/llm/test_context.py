"""Prompts fitted to a context window, and schemas a grammar engine can compile. No database."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from agents.tasks.importance import Importance
from agents.tasks.summary import SUMMARY
from llm.context import prompt_fit
from llm.dialects import dialect_from_models, grammar_schema, ladder_for, refuses_format
from llm.tasks import PromptTask, output_token_limit


class _Plan(BaseModel):
    start: str = Field(pattern=r"^\d{2}:\d{2}$")
    note: str = Field(max_length=600)
    hour: int = Field(ge=0, le=23)
    items: list[str] = Field(min_length=1, max_length=40)


def _words(text: str) -> int:
    return len(text.split())


def test_trimming_drops_the_least_relevant_memories_first_and_leaves_room_to_reply() -> None:
    task: PromptTask[Any] = PromptTask(
        name="summary", template=SUMMARY.template, output=Importance, offline=lambda i, r: None
    )
    names = sorted(task.input_names)
    inputs: dict[str, object] = {name: "x" for name in names}
    listed = next(n for n in names if n in ("memories", "statements"))
    inputs[listed] = [f"{i}. memory number {i} " + "word " * 20 for i in range(1, 60)]
    fitted = prompt_fit(task=task, inputs=inputs, context_tokens=400, count=_words)
    kept = fitted.inputs[listed]
    assert isinstance(kept, list) and 0 < len(kept) < 59
    assert kept[0].startswith("1. ")  # the most relevant stays
    assert _words(fitted.prompt) + fitted.max_tokens <= 400
    assert fitted.max_tokens == output_token_limit(task)  # the reply got its room
    whole = prompt_fit(task=task, inputs=inputs, context_tokens=0, count=_words)
    assert whole.inputs == inputs and whole.trimmed == 0  # no window: nothing trimmed


def test_grammar_schema_keeps_what_a_grammar_can_hold() -> None:
    schema = grammar_schema(_Plan.model_json_schema())
    props = schema["properties"]
    assert props["start"]["pattern"] == "^[0-9]{2}:[0-9]{2}$"  # no \\d for llama.cpp
    assert "maxLength" not in props["note"]  # 600 repetitions: dropped, checked after
    assert props["hour"]["enum"] == list(range(24))
    assert "maxItems" not in props["items"] and props["items"]["minItems"] == 1
    assert schema["required"] == ["start", "note", "hour", "items"]


def test_dialects_are_told_by_the_models_list_and_refusals() -> None:
    assert dialect_from_models([{"id": "/m/smollm2.gguf", "owned_by": "me"}]) == (
        "llama_cpp_python"
    )
    assert dialect_from_models([{"id": "qwen", "owned_by": "vllm"}]) == "vllm"
    assert dialect_from_models([{"id": "llama3", "owned_by": "library"}]) == "ollama"
    assert dialect_from_models([{"id": "gpt-4o-mini", "owned_by": "system"}]) == "openai"
    assert ladder_for("llama_cpp_python") == ("json_object_schema", "json_object", "text")
    assert ladder_for("openai", "json_object") == ("json_object", "text")
    assert refuses_format(500, "Input should be 'text' or 'json_object'")
    assert refuses_format(422, "anything")
    assert not refuses_format(500, "internal error")
    assert not refuses_format(503, "response_format")
    assert not refuses_format(400, "Requested tokens (2300) exceed context window of 2048")
    assert not refuses_format(400, "the request exceeds the available context size")
