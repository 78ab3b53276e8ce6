"""The `openai` backend: the real client over HTTP against a scripted local server.

The server answers in turn: valid JSON; malformed JSON; JSON that breaks the schema; 429;
500; a reply slower than the timeout. Each ends as designed (parsed, re-asked, retried,
or a typed failure) and the ledger records the attempts and errors.
"""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

from agents.tasks.importance import IMPORTANCE, Importance
from llm.backends import (
    LLMConfig,
    ModelRequest,
    backend_get,
    message_list,
)
from llm.dialects import strict_compatible
from llm.models import ModelCall
from llm.port import (
    ModelCallFailed,
    ModelOutputInvalid,
    ModelRequestRejected,
    ModelUnavailable,
    calls_in_background,
    llm_run,
)
from llm.selectors import model_call_fallback_rate, model_call_summary
from llm.tasks import output_token_limit
from llm.tokens import count_message_tokens
from tests.model_server import ModelServer, error, ok, slow
from world.models import Simulation

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


def test_each_answer_in_turn_ends_as_designed(openai_llm: ModelServer) -> None:
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


def test_reask_sends_the_bad_reply_and_the_problem_back(openai_llm: ModelServer) -> None:
    openai_llm.push(ok(OFF_SCHEMA), ok({"importance": 3}))
    assert rate().importance == 3
    first, second = openai_llm.chat_requests()
    assert len(first["body"]["messages"]) == 1
    assert second["body"]["messages"][1] == {"role": "assistant", "content": '{"importance": 42}'}
    reask = second["body"]["messages"][2]["content"]
    assert "does not match the schema" in reask and "JSON schema" in reask


def test_structured_output_is_asked_for_with_the_schema(openai_llm: ModelServer) -> None:
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


def test_a_request_carries_its_priority_only_when_the_server_orders_by_it(
    openai_llm: ModelServer, settings: Any
) -> None:
    """vLLM refuses `priority` unless started with --scheduling-policy priority: it goes
    only with SMALLVILLE_LLM_PRIORITY, 0 on the critical path, 1 for background work."""
    openai_llm.push(*(ok({"importance": 2}) for _ in range(3)))
    rate()
    settings.SMALLVILLE_LLM_PRIORITY = True
    rate()
    with calls_in_background():
        rate()
    off, critical, background = (r["body"] for r in openai_llm.chat_requests())
    assert "priority" not in off
    assert (critical["priority"], background["priority"]) == (0, 1)


def test_reply_wrapped_in_prose_and_fences_is_parsed(openai_llm: ModelServer) -> None:
    openai_llm.push(ok('Sure! Here it is:\n```json\n{"importance": 9}\n```'))
    assert rate().importance == 9
    assert last_call().attempts == 1


def test_invalid_replies_past_the_reask_limit_take_the_fail_safe_answer(
    openai_llm: ModelServer, simulation: Simulation
) -> None:
    """The reference implementation's fail-safe: the offline policy's answer for the same
    inputs and seed, marked as a fallback in the ledger and in the fallback rate."""
    openai_llm.push(ok(MALFORMED), ok(OFF_SCHEMA), ok("seven"))
    answer = rate(simulation)
    call = last_call()
    seed = IMPORTANCE.seed(simulation_seed=simulation.seed, inputs=INPUTS)
    assert answer == IMPORTANCE.run_offline(seed=seed, inputs=INPUTS)
    assert call.fallback and call.attempts == 3
    assert call.output == answer.model_dump(mode="json")
    assert call.error.startswith("fallback: the model's output stayed invalid")
    assert model_call_fallback_rate(simulation=simulation) == 1.0
    assert model_call_summary(simulation=simulation)["totals"]["fallbacks"] == 1


def test_invalid_replies_past_the_reask_limit_fail_typed_when_told_to(
    openai_llm: ModelServer, simulation: Simulation, settings: Any
) -> None:
    settings.SMALLVILLE_LLM_FALLBACK = "fail"
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


def test_transient_errors_past_the_retry_limit_fail_typed(openai_llm: ModelServer) -> None:
    openai_llm.push(error(500), error(429), slow(1.5, "{}"), error(503), error(502))
    with pytest.raises(ModelUnavailable) as failure:
        rate()
    call = last_call()
    assert failure.value.attempts == 5 == call.attempts  # 1 + SMALLVILLE_LLM_MAX_RETRIES
    assert outcomes(call) == ["server_error", "rate_limited", "timeout"] + ["server_error"] * 2
    assert "HTTP 502" in call.error
    assert isinstance(failure.value, ModelCallFailed)
    assert call.prompt_tokens == 0  # no reply, nothing billed


def test_refusal_fails_at_once(openai_llm: ModelServer) -> None:
    openai_llm.push(error(401))
    with pytest.raises(ModelRequestRejected):
        rate()
    call = last_call()
    assert call.attempts == 1 and outcomes(call) == ["rejected"]
    assert call.error.endswith("HTTP 401: scripted 401")


def test_retry_after_is_honoured_up_to_the_cap(openai_llm: ModelServer, settings: Any) -> None:
    settings.SMALLVILLE_LLM_BACKOFF_MAX = 0.3
    openai_llm.push(error(429, **{"Retry-After": "0.25"}), ok({"importance": 4}))
    assert rate().importance == 4
    assert last_call().latency_ms >= 250


def test_unsupported_json_schema_steps_down_to_json_mode(openai_llm: ModelServer) -> None:
    openai_llm.push(error(400), ok({"importance": 5}), ok({"importance": 2}))
    assert rate().importance == 5
    assert outcomes(last_call()) == ["format_unsupported", "ok"]
    assert rate().importance == 2  # the step down holds for later calls
    formats = [r["body"].get("response_format", {}).get("type") for r in openai_llm.requests]
    assert formats == ["json_schema", "json_object", "json_object"]


def test_a_step_down_is_remembered_for_the_server_under_its_dialect_only(
    openai_llm: ModelServer, settings: Any
) -> None:
    """Another process told the same server's dialect starts where this one stepped down
    to; one that finds another dialect by probing (a test told the llama-cpp-python
    server it was OpenAI's; the town's run probes it) starts at the top of its own."""
    settings.SMALLVILLE_LLM_DIALECT = "openai"
    openai_llm.push(error(400), ok({"importance": 5}))
    assert rate().importance == 5  # stepped down to json_object, and remembered
    settings.SMALLVILLE_LLM_DIALECT = "auto"  # a new backend: same server, probed
    openai_llm.models = [{"id": "fake-model", "object": "model", "owned_by": "ollama"}]
    openai_llm.push(ok({"importance": 3}))
    assert rate().importance == 3
    settings.SMALLVILLE_LLM_DIALECT = "openai"
    settings.SMALLVILLE_LLM_TIMEOUT = 0.6  # a new backend instance, as in another process
    openai_llm.push(ok({"importance": 4}))
    assert rate().importance == 4
    formats = [r["body"].get("response_format", {}).get("type") for r in openai_llm.requests]
    assert formats == ["json_schema", "json_object", "json_schema", "json_object"]


def test_a_500_that_names_the_format_steps_down_and_a_plain_500_is_retried(
    openai_llm: ModelServer,
) -> None:
    """llama-cpp-python answers `json_schema` with HTTP 500 "Input should be 'text' or
    'json_object'": that is a refused format, not a server fault."""
    refused = "1 validation error: response_format.type Input should be 'text' or 'json_object'"
    openai_llm.push(error(500, refused), ok({"importance": 5}))
    assert rate().importance == 5
    assert outcomes(last_call()) == ["format_unsupported", "ok"]
    openai_llm.push(error(500), ok({"importance": 6}))
    assert rate().importance == 6
    assert outcomes(last_call()) == ["server_error", "ok"]
    formats = [r["body"].get("response_format", {}).get("type") for r in openai_llm.requests]
    assert formats == ["json_schema", "json_object", "json_object", "json_object"]


def test_a_prompt_too_long_for_the_window_is_rejected_not_a_format_step_down(
    openai_llm: ModelServer,
) -> None:
    """llama-cpp-python answers an overlong prompt with a 400; no other format would fit
    it, so the backend keeps its format and the call fails typed, pointing at the ledger."""
    overflow = "Requested tokens (2300) exceed context window of 2048"
    openai_llm.push(error(400, overflow), ok({"importance": 5}))
    with pytest.raises(ModelRequestRejected) as failed:
        rate()
    assert failed.value.call_id == last_call().pk
    assert outcomes(last_call()) != ["format_unsupported", "ok"]
    assert rate().importance == 5
    formats = [r["body"].get("response_format", {}).get("type") for r in openai_llm.requests]
    assert formats == ["json_schema", "json_schema"]


@pytest.mark.parametrize(
    ("dialect", "expected"),
    [
        ("openai", {"response_format": "json_schema"}),
        ("llama_cpp_python", {"response_format": "json_object", "schema": True}),
        ("llama_server", {"response_format": "json_schema"}),
        ("vllm", {"guided_json": True}),
        ("ollama", {"response_format": "json_schema"}),
    ],
)
def test_each_dialect_sends_the_schema_its_way(
    openai_llm: ModelServer, settings: Any, dialect: str, expected: dict[str, Any]
) -> None:
    settings.SMALLVILLE_LLM_DIALECT = dialect
    openai_llm.push(ok({"importance": 4}))
    assert rate().importance == 4
    body = openai_llm.chat_requests()[0]["body"]
    assert body["max_tokens"] == output_token_limit(IMPORTANCE)
    if "response_format" in expected:
        assert body["response_format"]["type"] == expected["response_format"]
    else:
        assert "response_format" not in body
    if expected.get("schema"):
        assert body["response_format"]["schema"]["required"] == ["importance"]
    if expected.get("guided_json"):
        assert body["guided_json"]["properties"]["importance"]["type"] == "integer"


def test_the_dialect_is_found_by_a_probe_of_the_models_list(
    openai_llm: ModelServer, settings: Any
) -> None:
    settings.SMALLVILLE_LLM_DIALECT = "auto"
    openai_llm.models = [{"id": "/models/smollm2.gguf", "object": "model", "owned_by": "me"}]
    openai_llm.push(ok({"importance": 4}))
    rate()
    assert openai_llm.chat_requests()[0]["body"]["response_format"]["type"] == "json_object"
    assert "schema" in openai_llm.chat_requests()[0]["body"]["response_format"]


def test_text_mode_sends_no_response_format(openai_llm: ModelServer, settings: Any) -> None:
    settings.SMALLVILLE_LLM_RESPONSE_FORMAT = "text"
    openai_llm.push(ok('{"importance": 3}'))
    assert rate().importance == 3
    assert "response_format" not in openai_llm.chat_requests()[0]["body"]


def test_tokens_in_the_ledger_are_the_servers_own(openai_llm: ModelServer, settings: Any) -> None:
    """The server counts with the model's tokenizer; the offline backend, which has none,
    counts the same prompt with ours."""
    openai_llm.push(ok(OFF_SCHEMA), ok({"importance": 7}))
    rate()
    remote = last_call()
    assert remote.usage == {"prompt_tokens": 22, "completion_tokens": 10}  # 11 + 5 per reply
    assert (remote.prompt_tokens, remote.completion_tokens) == (22, 10)

    settings.SMALLVILLE_LLM_BACKEND = "offline"
    rate()
    local = last_call()
    assert (local.backend, local.attempts) == ("offline", 1)
    assert local.prompt == remote.prompt
    prompt = IMPORTANCE.render(INPUTS)
    assert local.prompt_tokens == count_message_tokens(message_list(prompt))


def test_concurrency_limit_holds_per_process(model_server: ModelServer) -> None:
    config = LLMConfig(
        backend="openai",
        base_url=model_server.base_url,
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
    model_server.default = slow(0.1, {"importance": 5})
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
    assert model_server.max_in_flight == 2


def test_strict_mode_only_for_closed_schemas() -> None:
    class Loose(BaseModel):
        value: int
        note: str = ""

    class Closed(BaseModel):
        model_config = ConfigDict(extra="forbid")
        items: list[Importance]

    assert strict_compatible(Importance.model_json_schema())
    assert strict_compatible(Closed.model_json_schema())
    assert not strict_compatible(Loose.model_json_schema())


def test_hours_a_schedule_leaves_empty_are_slept_not_a_fallback(openai_llm: ModelServer) -> None:
    """A small model's hour blocks that start at 07:00, skip 12:00-13:00 and end at 20:00
    keep the model's blocks: the night is slept at the first block's place and the gap
    goes on with the block before it, as the reference implementation mends them."""
    from agents.tasks.hourly_schedule import HOURLY_SCHEDULE

    place = {"sector": "Isabella Rodriguez's apartment", "arena": "main room"}
    cafe = {"sector": "Hobbs Cafe", "arena": "cafe"}
    blocks = [
        {"description": "wake up and get ready", "start": "07:00", "duration_minutes": 60, **place},
        {"description": "open the cafe", "start": "08:00", "duration_minutes": 240, **cafe},
        {"description": "serve customers", "start": "13:00", "duration_minutes": 420, **cafe},
    ]
    openai_llm.push(ok({"blocks": blocks}))
    inputs = {
        "agent_name": "Isabella Rodriguez",
        "summary": "Isabella runs Hobbs Cafe.",
        "day_plan": "wake up at 7, open the cafe at 8",
        "living_area": "Isabella Rodriguez's apartment:main room",
        "places": "Hobbs Cafe:cafe",
    }
    schedule = llm_run(task=HOURLY_SCHEDULE, inputs=inputs)
    got = [(b.description, b.start, b.duration_minutes, b.sector) for b in schedule.blocks]
    assert got == [
        ("sleeping", "00:00", 420, place["sector"]),
        ("wake up and get ready", "07:00", 60, place["sector"]),
        ("open the cafe", "08:00", 300, cafe["sector"]),  # on through the empty noon
        ("serve customers", "13:00", 420, cafe["sector"]),
        ("sleeping", "20:00", 240, place["sector"]),
    ]
    call = last_call()
    assert call.attempts == 1 and not call.fallback and call.error == ""


def test_a_reask_after_a_long_wrong_reply_still_fits_the_window(
    openai_llm: ModelServer, settings: Any
) -> None:
    """A small model's reply that fills the window with junk is not sent back with the
    re-ask (it would overflow the window and the server would refuse the request): the
    re-ask goes with the original prompt, and its reply limit is what the window leaves."""
    settings.SMALLVILLE_LLM_CONTEXT_TOKENS = 700
    junk = "seven " * 400  # about 400 tokens of an invalid reply
    openai_llm.push(ok(junk), ok({"importance": 6}))
    assert rate().importance == 6
    first, reask = (r["body"] for r in openai_llm.chat_requests())
    assert junk not in json.dumps(reask["messages"])
    assert reask["messages"][: len(first["messages"])] == first["messages"]
    assert reask["max_tokens"] <= first["max_tokens"]
    assert outcomes(last_call()) == ["invalid_output", "ok"]


def test_a_request_refused_on_a_reask_takes_the_fail_safe_answer(
    openai_llm: ModelServer, simulation: Simulation
) -> None:
    """The output was already invalid; a server refusing the re-ask (an overflow it
    counts differently) leaves it invalid: the fail-safe answer, not a failed step."""
    overflow = "This model's maximum context length is 2048 tokens. However, you requested 3689"
    openai_llm.push(ok(MALFORMED), error(400, overflow))
    rate(simulation)
    call = last_call()
    assert call.fallback and outcomes(call) == ["invalid_output", "rejected"]
