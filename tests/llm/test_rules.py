"""The language-model port's pure rules: token counts, reading a model's reply, backoff
delays and the offline seed; no server (the offline backend's answer reads the embedding
cache: agents/offline/judgments.py, tested in tests/agents/offline/test_judgments.py)."""

from __future__ import annotations

import random

import pytest
from pydantic import BaseModel

from agents.tasks.importance import IMPORTANCE, Importance
from llm.backends import (
    ModelRequest,
    OfflineBackend,
    OutputInvalid,
    message_list,
    parse_reply,
)
from llm.openai_backend import backoff_delay
from llm.tasks import PromptTask
from llm.tokens import count_message_tokens, count_tokens

INPUTS = {
    "agent_name": "Klaus Mueller",
    "agent_identity": "Name: Klaus Mueller",
    "memory": "Klaus Mueller is reading at the library",
}


class EdgeRng(random.Random):
    """A generator whose uniform draws land on one edge of the range."""

    def __init__(self, high: bool) -> None:
        super().__init__(0)
        self.high = high

    def uniform(self, a: float, b: float) -> float:
        return b if self.high else a


# --- token counting ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("   \t ", 0),  # whitespace is free
        ("a" * 6, 1),  # ASCII letters: one token per started 6
        ("a" * 7, 2),
        ("a" * 13, 3),
        ("東京都庁", 2),  # other letters: one per started 2
        ("東京都", 2),
        ("naïve", 3),  # "na", "ï", "ve": an accent splits an ASCII run
        ("123", 1),  # digits: one per started group of 3
        ("1234567", 3),
        ("!!!", 3),  # each symbol one
        ("snake_case", 3),  # the underscore is a symbol of its own
        ("\n\n\n", 1),  # a run of newlines is one
    ],
)
def test_token_counter_rules(text: str, tokens: int) -> None:
    assert count_tokens(text) == tokens


def test_a_chat_prompt_adds_three_per_message_and_three_for_the_reply() -> None:
    assert count_message_tokens([]) == 3
    messages = [
        {"role": "system", "content": "be brief"},  # 2 tokens
        {"role": "user", "content": "rate 1234567"},  # 1 + 3
    ]
    assert count_message_tokens(messages) == 3 + (3 + 2) + (3 + 4)


def test_only_the_content_of_a_message_is_counted() -> None:
    short = [{"role": "user", "content": "hi"}]
    long_role = [{"role": "a-very-long-role-name-indeed", "content": "hi"}]
    assert count_message_tokens(short) == count_message_tokens(long_role) == 3 + 3 + 1


# --- reading a model's reply ---------------------------------------------------------


class Nested(BaseModel):
    outer: dict[str, int]


@pytest.mark.parametrize(
    "raw",
    [
        '{"importance": 7}',
        '  \n{"importance": 7}\n  ',
        '```json\n{"importance": 7}\n```',
        '```\n{"importance": 7}\n```',
        'Sure! Here it is:\n```json\n{"importance": 7}\n```\nHope that helps.',
        'On a scale of 1 to 10, {"importance": 7} since it matters to him.',
    ],
)
def test_the_json_object_is_found_in_fences_and_prose(raw: str) -> None:
    assert parse_reply(raw, Importance) == Importance(importance=7)


def test_prose_around_a_nested_object_keeps_the_whole_object() -> None:
    reply = 'The answer: {"outer": {"a": 1, "b": 2}} (as asked).'
    assert parse_reply(reply, Nested) == Nested(outer={"a": 1, "b": 2})


@pytest.mark.parametrize("raw", ["", "I cannot rate this.", '{"importance": 7', "```json\n```"])
def test_a_reply_without_json_is_invalid(raw: str) -> None:
    with pytest.raises(OutputInvalid, match=r"^not valid JSON: "):
        parse_reply(raw, Importance)


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        ('{"importance": 11}', "importance: Input should be less than or equal to 10"),
        ('{"importance": 0}', "importance: Input should be greater than or equal to 1"),
        ('{"importance": 3, "mood": "sad"}', "mood: Extra inputs are not permitted"),
        ("{}", "importance: Field required"),
        ("[7]", "reply: Input should be a valid dictionary"),
    ],
)
def test_a_reply_breaking_the_schema_says_which_field(raw: str, problem: str) -> None:
    # The message goes back to the model when it is re-asked.
    with pytest.raises(OutputInvalid) as failure:
        parse_reply(raw, Importance)
    assert str(failure.value).startswith(f"does not match the schema: {problem}")
    assert isinstance(failure.value, ValueError)


# --- backoff -------------------------------------------------------------------------


@pytest.mark.parametrize(("retry", "ceiling"), [(1, 0.5), (2, 1.0), (3, 2.0), (4, 4.0), (9, 8.0)])
def test_backoff_doubles_up_to_the_cap_drawn_from_the_upper_half(
    retry: int, ceiling: float
) -> None:
    low = backoff_delay(retry, base=0.5, cap=8.0, rng=EdgeRng(high=False))
    high = backoff_delay(retry, base=0.5, cap=8.0, rng=EdgeRng(high=True))
    assert (low, high) == (ceiling / 2, ceiling)


def test_backoff_with_a_real_generator_stays_in_the_upper_half() -> None:
    rng = random.Random(1)
    delays = [backoff_delay(3, base=1.0, cap=60.0, rng=rng) for _ in range(200)]
    assert all(2.0 <= d <= 4.0 for d in delays)
    assert max(delays) - min(delays) > 1.0  # jittered, not constant


def test_a_longer_retry_after_is_honoured_up_to_the_cap() -> None:
    low = EdgeRng(high=False)
    assert backoff_delay(1, base=1.0, cap=10.0, rng=low, retry_after=3.0) == 3.0
    assert backoff_delay(1, base=1.0, cap=10.0, rng=low, retry_after=30.0) == 10.0
    assert backoff_delay(1, base=1.0, cap=10.0, rng=low, retry_after=0.1) == 0.5  # shorter


# --- the offline seed and backend ----------------------------------------------------


def test_the_seed_is_the_same_in_every_process() -> None:
    # A sha256 of (simulation seed, task, inputs), not Python's per-process hash():
    # a run replayed elsewhere gets the same offline answers. Changing this value
    # changes the answers of every recorded offline run.
    seed = IMPORTANCE.seed(simulation_seed=42, inputs=INPUTS)
    assert seed == 7850686379457450418


def test_the_seed_depends_on_the_task() -> None:
    twin: PromptTask[Importance] = PromptTask(
        name="importance-twin",
        template=IMPORTANCE.template,
        output=Importance,
        offline=IMPORTANCE.offline,
    )
    assert twin.seed(simulation_seed=42, inputs=INPUTS) != IMPORTANCE.seed(
        simulation_seed=42, inputs=INPUTS
    )


def test_inputs_are_seeded_as_the_text_the_prompt_shows() -> None:
    listed = {**INPUTS, "memory": ["first line", "second line"]}
    joined = {**INPUTS, "memory": "first line\nsecond line"}
    assert IMPORTANCE.seed(simulation_seed=1, inputs=listed) == IMPORTANCE.seed(
        simulation_seed=1, inputs=joined
    )
    assert "Memory: first line\nsecond line" in IMPORTANCE.render(listed)
    assert IMPORTANCE.seed(simulation_seed=1, inputs={**INPUTS, "memory": 7}) == IMPORTANCE.seed(
        simulation_seed=1, inputs={**INPUTS, "memory": "7"}
    )


@pytest.mark.django_db
def test_the_offline_backend_answers_in_json_a_model_reply_would_parse_to() -> None:
    seed = IMPORTANCE.seed(simulation_seed=3, inputs=INPUTS)
    messages = message_list(IMPORTANCE.render(INPUTS))
    request = ModelRequest(task=IMPORTANCE, inputs=INPUTS, messages=messages, seed=seed)
    first = OfflineBackend().complete(request)
    again = OfflineBackend().complete(request)

    assert first.output == again.output == IMPORTANCE.run_offline(seed=seed, inputs=INPUTS)
    assert parse_reply(first.raw_reply, Importance) == first.output
    assert first.failure is None
    (attempt,) = first.attempts
    assert attempt.outcome == "ok"
    assert attempt.prompt_tokens == count_message_tokens(messages)
    assert attempt.completion_tokens == count_tokens(first.raw_reply)
