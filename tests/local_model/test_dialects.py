"""The llama-cpp-python dialect against the real server, and the step down from the
`json_schema` it answers with HTTP 500."""

from __future__ import annotations

from typing import Any

import pytest

from agents.tasks.day_plan import DAY_PLAN
from agents.tasks.importance import IMPORTANCE
from llm.local import LocalModelServer
from llm.models import ModelCall
from llm.port import llm_run

INPUTS = {
    "agent_name": "Isabella Rodriguez",
    "agent_identity": "Name: Isabella Rodriguez\nAge: 34\nShe runs Hobbs Cafe.",
    "memory": "Isabella Rodriguez is planning a Valentine's Day party at Hobbs Cafe",
}


@pytest.mark.django_db
def test_the_probe_finds_llama_cpp_python_and_the_schema_constrains_the_reply(
    on_local_model: LocalModelServer,
) -> None:
    rated = llm_run(task=IMPORTANCE, inputs=INPUTS)
    call = ModelCall.objects.latest("id")
    assert 1 <= rated.importance <= 10
    assert [a["response_format"] for a in call.attempt_log] == ["json_object_schema"]
    assert not call.fallback and call.error == ""
    assert call.usage["prompt_tokens"] == call.prompt_tokens > 0  # the server's own count


@pytest.mark.django_db
def test_json_schema_refused_with_a_500_steps_down(
    on_local_model: LocalModelServer, settings: Any
) -> None:
    settings.SMALLVILLE_LLM_DIALECT = "openai"  # as if the server were OpenAI
    llm_run(task=IMPORTANCE, inputs=INPUTS)
    call = ModelCall.objects.latest("id")
    outcomes = [(a["response_format"], a["outcome"]) for a in call.attempt_log]
    assert outcomes[0] == ("json_schema", "format_unsupported")
    assert "HTTP 500" in call.attempt_log[0]["error"]
    assert outcomes[-1][0] == "json_object"
    assert call.error == "" or call.fallback


@pytest.mark.django_db
def test_a_long_prompt_is_trimmed_to_the_window_and_never_overflows(
    on_local_model: LocalModelServer, settings: Any
) -> None:
    settings.SMALLVILLE_LLM_CONTEXT_TOKENS = 512  # the server has 2,048: a hard test
    inputs = {
        "agent_name": "Klaus Mueller",
        "summary": "Klaus Mueller is a student of sociology. " * 5,
        "date": "Monday February 13, 2023",
        "yesterday": "Klaus studied at the library and ate at Hobbs Cafe.",
        "commitments": [f"{i}. meet friend {i} at the park at {i % 12 + 1}pm" for i in range(80)],
        "recent": [f"{i}. Klaus remembers detail number {i} of his research" for i in range(80)],
    }
    inputs = {name: inputs.get(name, "none") for name in DAY_PLAN.input_names}
    llm_run(task=DAY_PLAN, inputs=inputs)
    call = ModelCall.objects.latest("id")
    assert call.prompt.count("Klaus remembers detail") < 80  # the least relevant went first
    assert "detail number 0 " in call.prompt  # the most relevant stayed
    assert all(a["outcome"] != "rejected" for a in call.attempt_log)
    assert call.error == "" or call.fallback


def test_every_tasks_schema_compiles_on_the_real_grammar_engine(
    local_model: LocalModelServer,
) -> None:
    """A schema the grammar engine cannot parse crashes llama-cpp-python's server (a `\\d`
    in a pattern did, and long `maxLength` bounds): each task's, as sent, is answered."""
    import openai

    import agents.tasks  # noqa: F401  (registers the mind's tasks)
    import evaluations.judge  # noqa: F401  (registers the judge)
    from llm.dialects import request_options
    from llm.tasks import task_list

    client = openai.OpenAI(base_url=local_model.base_url, api_key="unused", max_retries=0)
    for task in task_list():
        schema = task.output.model_json_schema()
        reply = client.chat.completions.create(
            model=local_model.model_name,
            messages=[{"role": "user", "content": "Answer in JSON."}],
            max_tokens=16,
            **request_options("json_object_schema", name=task.name, schema=schema),
        )
        assert reply.choices[0].message.content, task.name
    assert "believability_judge" in {task.name for task in task_list()}


def test_every_tasks_schema_for_a_grammar_compiles_with_llama_cpps_parser() -> None:
    """llama.cpp's own grammar parser (the one its servers and Ollama run, here on the
    bundled model's vocabulary) compiles each task's schema as the grammar dialects send
    it; the full schema of a long free-text field is the one it refuses."""
    import json

    import llama_cpp
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    import agents.tasks  # noqa: F401  (registers the mind's tasks)
    import evaluations.judge  # noqa: F401  (registers the judge)
    from llm.dialects import grammar_schema
    from llm.local import local_model_path
    from llm.tasks import task_list

    model = llama_cpp.Llama(model_path=str(local_model_path()), vocab_only=True, verbose=False)
    vocab = llama_cpp.llama_model_get_vocab(model.model)

    def compiles(schema: dict[str, Any]) -> bool:
        grammar = json_schema_to_gbnf(json.dumps(schema)).encode()
        sampler = llama_cpp.llama_sampler_init_grammar(vocab, grammar, b"root")
        if sampler:
            llama_cpp.llama_sampler_free(sampler)
        return bool(sampler)

    tasks = task_list()
    assert len(tasks) >= 17
    assert [t.name for t in tasks if not compiles(grammar_schema(t.output_schema))] == []
    assert not compiles(next(t for t in tasks if t.name == "summary").output_schema)
