"""The `openai` backend: the real client over HTTP against a scripted local server.

The server answers in turn: valid JSON; malformed JSON; JSON that breaks the schema; 429;
500; a reply slower than the timeout. Each ends as designed (parsed, re-asked, retried,
or a typed failure) and the ledger records the attempts and errors.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

from llm.backends import (
    LLMConfig,
    ModelRequest,
    _strict_compatible,
    backend_get,
    message_list,
)
from llm.importance import IMPORTANCE, Importance
from llm.models import ModelCall
from llm.port import (
    ModelCallFailed,
    ModelOutputInvalid,
    ModelRequestRejected,
    ModelUnavailable,
    llm_run,
)
from llm.tokens import count_message_tokens, count_tokens
from world.models import Simulation

from .fake_openai import FakeOpenAI, error, ok, slow

pytestmark = pytest.mark.django_db

INPUTS = {
    "agent_name": "Isabella Rodriguez",
    "agent_identity": "Name: Isabella Rodriguez\nAge: 34",
    "memory": "Isabella Rodriguez is planning a Valentine's Day party",
}
MALFORMED = '{"importance": 7'
OFF_SCHEMA = {"importance": 42}


def rate(simulation: Simulation | None = None) -> Importance:
    return llm_run(task=IMPORTANCE, inputs=INPUTS, simulation=simulation)


def last_call() -> ModelCall:
    return ModelCall.objects.latest("id")


def outcomes(call: ModelCall) -> list[str]:
    return [attempt["outcome"] for attempt in call.attempt_log]


def test_each_answer_in_turn_ends_as_designed(openai_llm: FakeOpenAI) -> None:
    openai_llm.push(ok({"importance": 8}))
    assert rate().importance == 8
    first = last_call()
    assert (first.attempts, first.error, first.output) == (1, "", {"importance": 8})

    openai_llm.push(
        ok(MALFORMED),  # re-asked
        ok(OFF_SCHEMA),  # re-asked
        error(429),  # retried
        error(500),  # retried
        slow(1.5, {"importance": 1}),  # times out, retried
        ok({"importance": 6}),
    )
    assert rate().importance == 6
    call = last_call()
    assert call.attempts == 6
    assert outcomes(call) == [
        "invalid_output",
        "invalid_output",
        "rate_limited",
        "server_error",
        "timeout",
        "ok",
    ]
    log = call.attempt_log
    assert log[0]["error"].startswith("not valid JSON")
    assert "importance" in log[1]["error"] and "less than or equal to 10" in log[1]["error"]
    assert log[2]["error"] == "HTTP 429: scripted 429"
    assert log[3]["error"] == "HTTP 500: scripted 500"
    assert log[4]["error"] == "request timed out"
    assert call.error == "" and call.output == {"importance": 6}
    assert call.raw_reply == '{"importance": 6}'


def test_reask_sends_the_bad_reply_and_the_problem_back(openai_llm: FakeOpenAI) -> None:
    openai_llm.push(ok(OFF_SCHEMA), ok({"importance": 3}))
    assert rate().importance == 3
    first, second = openai_llm.chat_requests()
    assert len(first["body"]["messages"]) == 1
    assert second["body"]["messages"][1] == {"role": "assistant", "content": '{"importance": 42}'}
    reask = second["body"]["messages"][2]["content"]
    assert "does not match the schema" in reask and "JSON schema" in reask


def test_structured_output_is_asked_for_with_the_schema(openai_llm: FakeOpenAI) -> None:
    openai_llm.push(ok({"importance": 2}))
    rate()
    (request,) = openai_llm.chat_requests()
    body = request["body"]
    assert body["model"] == "fake-model"
    assert request["headers"]["authorization"] == "Bearer test-key"
    assert body["response_format"]["type"] == "json_schema"
    schema = body["response_format"]["json_schema"]
    assert schema["name"] == "importance" and schema["strict"] is True
    assert schema["schema"]["properties"]["importance"]["maximum"] == 10
    assert isinstance(body["seed"], int)


def test_reply_wrapped_in_prose_and_fences_is_parsed(openai_llm: FakeOpenAI) -> None:
    openai_llm.push(ok('Sure! Here it is:\n```json\n{"importance": 9}\n```'))
    assert rate().importance == 9
    assert last_call().attempts == 1


def test_invalid_replies_past_the_reask_limit_fail_typed(
    openai_llm: FakeOpenAI, simulation: Simulation
) -> None:
    openai_llm.push(ok(MALFORMED), ok(OFF_SCHEMA), ok("seven"))
    with pytest.raises(ModelOutputInvalid) as failure:
        rate(simulation)
    call = last_call()
    assert failure.value.call_id == call.pk
    assert failure.value.attempts == 3 == call.attempts  # 1 + SMALLVILLE_LLM_MAX_REASKS
    assert outcomes(call) == ["invalid_output"] * 3
    assert call.output is None and call.error.startswith("importance: invalid_output after 3")
    assert call.raw_reply == "seven"
    assert call.simulation == simulation and call.finished_at is not None


def test_transient_errors_past_the_retry_limit_fail_typed(openai_llm: FakeOpenAI) -> None:
    openai_llm.push(error(500), error(429), slow(1.5, "{}"), error(503), error(502))
    with pytest.raises(ModelUnavailable) as failure:
        rate()
    call = last_call()
    assert failure.value.attempts == 5 == call.attempts  # 1 + SMALLVILLE_LLM_MAX_RETRIES
    assert outcomes(call) == ["server_error", "rate_limited", "timeout"] + ["server_error"] * 2
    assert "HTTP 502" in call.error
    assert isinstance(failure.value, ModelCallFailed)
    assert call.prompt_tokens == 0  # no reply, nothing billed


def test_refusal_fails_at_once(openai_llm: FakeOpenAI) -> None:
    openai_llm.push(error(401))
    with pytest.raises(ModelRequestRejected):
        rate()
    call = last_call()
    assert call.attempts == 1 and outcomes(call) == ["rejected"]
    assert call.error.endswith("HTTP 401: scripted 401")


def test_retry_after_is_honoured_up_to_the_cap(openai_llm: FakeOpenAI, settings: Any) -> None:
    settings.SMALLVILLE_LLM_BACKOFF_MAX = 0.3
    openai_llm.push(error(429, **{"Retry-After": "0.25"}), ok({"importance": 4}))
    assert rate().importance == 4
    assert last_call().latency_ms >= 250


def test_unsupported_json_schema_steps_down_to_json_mode(openai_llm: FakeOpenAI) -> None:
    openai_llm.push(error(400), ok({"importance": 5}), ok({"importance": 2}))
    assert rate().importance == 5
    assert outcomes(last_call()) == ["format_unsupported", "ok"]
    assert rate().importance == 2  # the step down holds for later calls
    formats = [r["body"].get("response_format", {}).get("type") for r in openai_llm.requests]
    assert formats == ["json_schema", "json_object", "json_object"]


def test_text_mode_sends_no_response_format(openai_llm: FakeOpenAI, settings: Any) -> None:
    settings.SMALLVILLE_LLM_RESPONSE_FORMAT = "text"
    openai_llm.push(ok('{"importance": 3}'))
    assert rate().importance == 3
    assert "response_format" not in openai_llm.chat_requests()[0]["body"]


def test_tokens_are_counted_as_the_offline_backend_counts_them(
    openai_llm: FakeOpenAI, settings: Any
) -> None:
    openai_llm.push(ok(OFF_SCHEMA), ok({"importance": 7}))
    rate()
    remote = last_call()
    prompt = IMPORTANCE.render(INPUTS)
    first_prompt = count_message_tokens(message_list(prompt))
    assert remote.prompt_tokens > 2 * first_prompt  # the re-ask resends the conversation
    assert remote.completion_tokens == count_tokens('{"importance": 42}') + count_tokens(
        '{"importance": 7}'
    )
    assert remote.usage == {"prompt_tokens": 22, "completion_tokens": 10}  # the server's own

    settings.SMALLVILLE_LLM_BACKEND = "offline"
    rate()
    local = last_call()
    assert (local.backend, local.attempts) == ("offline", 1)
    assert local.prompt == remote.prompt
    assert local.prompt_tokens == first_prompt == remote.attempt_log[0]["prompt_tokens"]


def test_concurrency_limit_holds_per_process(fake_openai: FakeOpenAI) -> None:
    config = LLMConfig(
        backend="openai",
        base_url=fake_openai.base_url,
        api_key="k",
        model="fake-model",
        timeout=5,
        max_retries=0,
        max_reasks=0,
        concurrency=2,
        response_format="json_schema",
        backoff_base=0.01,
        backoff_max=0.01,
    )
    fake_openai.default = slow(0.1, {"importance": 5})
    backend = backend_get(config)
    request = ModelRequest(
        task=IMPORTANCE,
        inputs=INPUTS,
        messages=message_list(IMPORTANCE.render(INPUTS)),
        seed=1,
    )
    results: list[Any] = []
    threads = [
        threading.Thread(target=lambda: results.append(backend.complete(request))) for _ in range(6)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [r.output.importance for r in results] == [5] * 6
    assert fake_openai.max_in_flight == 2


def test_strict_mode_only_for_closed_schemas() -> None:
    class Loose(BaseModel):
        value: int
        note: str = ""

    class Closed(BaseModel):
        model_config = ConfigDict(extra="forbid")
        items: list[Importance]

    assert _strict_compatible(Importance.model_json_schema())
    assert _strict_compatible(Closed.model_json_schema())
    assert not _strict_compatible(Loose.model_json_schema())
