"""The backends behind the port: `offline` (rules, the default) and `openai` (any server).

Both take the same rendered messages and report attempts the same way, with tokens
counted by `agents.llm.tokens`, so the ledger compares them call for call.

The `openai` backend drives the official client with its own retries off
(`max_retries=0`) and does the retrying itself, so that every HTTP attempt is counted
and logged:

- a reply that is not JSON, or breaks the output schema, is re-asked (the bad reply and
  the validation error go back to the model) up to SMALLVILLE_LLM_MAX_REASKS times;
- 408, 409, 429, 5xx, timeouts and connection errors are retried up to
  SMALLVILLE_LLM_MAX_RETRIES times after an exponential backoff with jitter
  (SMALLVILLE_LLM_BACKOFF_BASE doubling up to SMALLVILLE_LLM_BACKOFF_MAX, each delay
  drawn from its upper half; a longer Retry-After is honoured up to the cap);
- a 400/422 while asking for structured output steps down once per level,
  json_schema -> json_object -> text (replies are parsed the same way in each mode);
- any other refusal (401, 403, 404...) fails at once.
Each ends as a parsed output or as a typed ModelCallFailed in the result.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from typing import Any, Protocol, cast

import openai
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from openai.types.chat import ChatCompletionMessageParam
from pydantic import BaseModel, ValidationError

from .errors import ModelCallFailed, ModelOutputInvalid, ModelRequestRejected, ModelUnavailable
from .replies import OutputInvalid as OutputInvalid
from .replies import parse_reply as parse_reply
from .tasks import Inputs, PromptTask
from .tokens import count_message_tokens, count_tokens

Message = dict[str, str]
RESPONSE_FORMATS = ("json_schema", "json_object", "text")
OFFLINE_MODEL = "offline-rules-v1"
_RETRYABLE_STATUS = frozenset({408, 409, 429})
_LOGGED_REPLY_CHARS = 2000


@dataclass(frozen=True)
class LLMConfig:
    """The SMALLVILLE_LLM_* settings, read per call so tests can override them."""

    backend: str
    base_url: str
    api_key: str
    model: str
    timeout: float
    max_retries: int
    max_reasks: int
    concurrency: int
    response_format: str
    backoff_base: float
    backoff_max: float

    @classmethod
    def from_settings(cls) -> LLMConfig:
        config = cls(
            backend=settings.SMALLVILLE_LLM_BACKEND,
            base_url=settings.SMALLVILLE_LLM_BASE_URL,
            api_key=settings.SMALLVILLE_LLM_API_KEY,
            model=settings.SMALLVILLE_LLM_MODEL,
            timeout=settings.SMALLVILLE_LLM_TIMEOUT,
            max_retries=settings.SMALLVILLE_LLM_MAX_RETRIES,
            max_reasks=settings.SMALLVILLE_LLM_MAX_REASKS,
            concurrency=settings.SMALLVILLE_LLM_CONCURRENCY,
            response_format=settings.SMALLVILLE_LLM_RESPONSE_FORMAT,
            backoff_base=settings.SMALLVILLE_LLM_BACKOFF_BASE,
            backoff_max=settings.SMALLVILLE_LLM_BACKOFF_MAX,
        )
        if config.response_format not in RESPONSE_FORMATS:
            raise ImproperlyConfigured(
                f"SMALLVILLE_LLM_RESPONSE_FORMAT must be one of {', '.join(RESPONSE_FORMATS)}"
            )
        return config


@dataclass(frozen=True)
class ModelRequest:
    task: PromptTask[Any]
    inputs: Inputs
    messages: tuple[Message, ...]
    seed: int


@dataclass
class Attempt:
    """One HTTP request (or one offline evaluation) and how it ended."""

    outcome: str  # ok, invalid_output, rate_limited, server_error, timeout, ...
    error: str = ""
    latency_ms: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reply: str = ""
    response_format: str = ""

    def as_log(self) -> dict[str, Any]:
        entry = asdict(self)
        entry["reply"] = self.reply[:_LOGGED_REPLY_CHARS]
        return entry


@dataclass
class BackendResult:
    output: BaseModel | None
    raw_reply: str
    attempts: list[Attempt]
    failure: ModelCallFailed | None = None
    usage: dict[str, int] = field(default_factory=dict)


class Backend(Protocol):
    name: str
    model: str

    def complete(self, request: ModelRequest) -> BackendResult: ...


def backend_get(config: LLMConfig | None = None) -> Backend:
    """The backend for the current settings; one instance per configuration and process."""
    return _backend_for(config or LLMConfig.from_settings())


@lru_cache(maxsize=8)
def _backend_for(config: LLMConfig) -> Backend:
    if config.backend == "offline":
        return OfflineBackend()
    if config.backend == "openai":
        return OpenAIBackend(config)
    raise ImproperlyConfigured(
        f"SMALLVILLE_LLM_BACKEND={config.backend!r}: expected 'offline' or 'openai'"
    )


class OfflineBackend:
    """Deterministic, seeded rules per task: a stand-in for demos and tests, not a model."""

    name = "offline"
    model = OFFLINE_MODEL

    def complete(self, request: ModelRequest) -> BackendResult:
        started = time.monotonic()
        try:
            output = request.task.run_offline(seed=request.seed, inputs=request.inputs)
        except ValidationError as exc:  # a policy broke its own schema: a failed call
            failure = ModelOutputInvalid(
                f"the offline policy's output breaks the schema: {exc}",
                task=request.task.name,
                attempts=1,
            )
            attempt = Attempt(
                outcome="invalid_output", latency_ms=_ms_since(started), error=str(exc)[:2000]
            )
            return BackendResult(output=None, raw_reply="", attempts=[attempt], failure=failure)
        raw = output.model_dump_json()
        attempt = Attempt(
            outcome="ok",
            latency_ms=_ms_since(started),
            prompt_tokens=count_message_tokens(request.messages),
            completion_tokens=count_tokens(raw),
            reply=raw,
        )
        return BackendResult(output=output, raw_reply=raw, attempts=[attempt])


def backoff_delay(
    retry: int, *, base: float, cap: float, rng: random.Random, retry_after: float | None = None
) -> float:
    """Seconds to wait before retry number `retry` (1-based): exponential, upper-half jitter."""
    ceiling = min(cap, base * 2 ** (retry - 1))
    delay = ceiling / 2 + rng.uniform(0, ceiling / 2)
    if retry_after is not None:
        delay = max(delay, min(retry_after, cap))
    return delay


class OpenAIBackend:
    """Chat completions on any OpenAI-compatible server: OpenAI, vLLM, Ollama, llama.cpp."""

    name = "openai"

    def __init__(self, config: LLMConfig) -> None:
        self.config = config
        self.model = config.model
        self._client = openai.OpenAI(
            base_url=config.base_url or None,
            api_key=config.api_key or "unused",  # local servers ignore it; the client needs one
            timeout=config.timeout,
            max_retries=0,
        )
        self._format = config.response_format
        self._slots = threading.BoundedSemaphore(config.concurrency) if config.concurrency else None
        self._jitter = random.Random()

    def complete(self, request: ModelRequest) -> BackendResult:
        messages: list[Message] = list(request.messages)
        attempts: list[Attempt] = []
        usage: dict[str, int] = {}
        retries = reasks = 0
        fmt = self._format
        raw = ""
        while True:
            attempt = Attempt(outcome="ok", response_format=fmt)
            attempts.append(attempt)
            started = time.monotonic()
            try:
                with self._slot():
                    completion = self._client.chat.completions.create(
                        model=self.model,
                        messages=cast(list[ChatCompletionMessageParam], messages),
                        seed=request.seed % 2**31,
                        **self._response_format(fmt, request.task),
                    )
            except openai.APIError as exc:
                attempt.latency_ms = _ms_since(started)
                attempt.outcome, attempt.error = _describe(exc)
                if attempt.outcome == "rejected" and fmt != "text" and _status(exc) in (400, 422):
                    attempt.outcome = "format_unsupported"
                    fmt = RESPONSE_FORMATS[RESPONSE_FORMATS.index(fmt) + 1]
                    continue
                if attempt.outcome == "rejected":
                    return self._failed(ModelRequestRejected, request, attempts, raw, usage)
                if retries >= self.config.max_retries:
                    return self._failed(ModelUnavailable, request, attempts, raw, usage)
                retries += 1
                time.sleep(
                    backoff_delay(
                        retries,
                        base=self.config.backoff_base,
                        cap=self.config.backoff_max,
                        rng=self._jitter,
                        retry_after=_retry_after(exc),
                    )
                )
                continue
            attempt.latency_ms = _ms_since(started)
            raw = (completion.choices[0].message.content or "") if completion.choices else ""
            attempt.reply = raw
            attempt.prompt_tokens = count_message_tokens(messages)
            attempt.completion_tokens = count_tokens(raw)
            _add_usage(usage, completion.usage)
            try:
                output = parse_reply(raw, request.task.output)
            except OutputInvalid as exc:
                attempt.outcome, attempt.error = "invalid_output", str(exc)
                if reasks >= self.config.max_reasks:
                    return self._failed(ModelOutputInvalid, request, attempts, raw, usage)
                reasks += 1
                messages += [
                    {"role": "assistant", "content": raw},
                    {"role": "user", "content": _reask(str(exc), request.task)},
                ]
                continue
            self._format = fmt  # a step down that worked holds for later calls
            return BackendResult(output=output, raw_reply=raw, attempts=attempts, usage=usage)

    @contextmanager
    def _slot(self) -> Iterator[None]:
        if self._slots is None:
            yield
            return
        with self._slots:
            yield

    def _response_format(self, fmt: str, task: PromptTask[Any]) -> dict[str, Any]:
        if fmt == "json_schema":
            schema = task.output.model_json_schema()
            return {
                "response_format": {
                    "type": "json_schema",
                    "json_schema": {
                        "name": task.name,
                        "schema": schema,
                        "strict": _strict_compatible(schema),
                    },
                }
            }
        if fmt == "json_object":
            return {"response_format": {"type": "json_object"}}
        return {}

    def _failed(
        self,
        kind: type[ModelCallFailed],
        request: ModelRequest,
        attempts: list[Attempt],
        raw: str,
        usage: dict[str, int],
    ) -> BackendResult:
        last = attempts[-1]
        failure = kind(
            f"{request.task.name}: {kind.reason} after {len(attempts)} attempts: {last.error}",
            task=request.task.name,
            attempts=len(attempts),
        )
        return BackendResult(
            output=None, raw_reply=raw, attempts=attempts, failure=failure, usage=usage
        )


def _strict_compatible(schema: object) -> bool:
    """Whether OpenAI's strict mode takes this schema: every object closed, every field required.

    Strict mode rejects other schemas outright; without it the schema still guides the
    model and the reply is validated here all the same.
    """
    if isinstance(schema, list):
        return all(_strict_compatible(item) for item in schema)
    if not isinstance(schema, dict):
        return True
    if "properties" in schema and (
        schema.get("additionalProperties") is not False
        or set(schema.get("required", [])) != set(schema["properties"])
    ):
        return False
    return all(_strict_compatible(value) for value in schema.values())


def _reask(error: str, task: PromptTask[Any]) -> str:
    schema = json.dumps(task.output.model_json_schema(), separators=(",", ":"))
    return (
        f"That reply could not be used: it is {error}. Answer again with only a JSON "
        f"object that matches this JSON schema: {schema}"
    )


def _status(exc: openai.APIError) -> int | None:
    return exc.status_code if isinstance(exc, openai.APIStatusError) else None


def _describe(exc: openai.APIError) -> tuple[str, str]:
    """(outcome, error) of a failed request; outcome says whether a retry can help."""
    if isinstance(exc, openai.APITimeoutError):
        return "timeout", "request timed out"
    if isinstance(exc, openai.APIConnectionError):
        return "connection_error", f"connection error: {exc}"
    status = _status(exc)
    body = exc.body.get("message") if isinstance(exc.body, dict) else None
    message = f"HTTP {status}: {body or exc.message}" if status else str(exc)
    if status == 429:
        return "rate_limited", message
    if status is not None and (status >= 500 or status in _RETRYABLE_STATUS):
        return "server_error", message
    return "rejected", message


def _retry_after(exc: openai.APIError) -> float | None:
    if not isinstance(exc, openai.APIStatusError):
        return None
    value = exc.response.headers.get("retry-after")
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def _add_usage(usage: dict[str, int], reported: object) -> None:
    for key in ("prompt_tokens", "completion_tokens"):
        value = getattr(reported, key, None)
        if isinstance(value, int):
            usage[key] = usage.get(key, 0) + value


def _ms_since(started: float) -> int:
    return round((time.monotonic() - started) * 1000)


def message_list(prompt: str) -> tuple[Message, ...]:
    """The chat messages for a rendered prompt: one user message, the same for all backends."""
    return ({"role": "user", "content": prompt},)
