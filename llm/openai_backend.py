"""The `openai` backend: chat completions on any OpenAI-compatible server.

It drives the official client with its own retries off (`max_retries=0`) and does the
retrying itself, so that every HTTP attempt is counted and logged:

- a reply that is not JSON, or breaks the output schema, is re-asked (the bad reply and
  the validation error go back to the model) up to SMALLVILLE_LLM_MAX_REASKS times;
- 408, 409, 429, 5xx, timeouts and connection errors are retried up to
  SMALLVILLE_LLM_MAX_RETRIES times after an exponential backoff with jitter
  (SMALLVILLE_LLM_BACKOFF_BASE doubling up to SMALLVILLE_LLM_BACKOFF_MAX, each delay
  drawn from its upper half; a longer Retry-After is honoured up to the cap);
- a refused response format (400/422, or a 500 that names it) steps down the server's
  ladder of formats (`llm/dialects.py`), and the rung that worked is remembered per server;
- any other refusal (401, 403, 404...) fails at once.
Each ends as a parsed output or as a typed ModelCallFailed in the result. Every request
carries the task's output-token limit, and a prompt is trimmed to the context window
(`llm/context.py`) before it is sent. With SMALLVILLE_LLM_SEND_TASK a request also carries
its task, inputs and seed (`TASK_FIELD`), for the policy server (`llm/policy_server.py`).
"""

from __future__ import annotations

import json
import math
import random
import re
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Any, cast

import openai
from django.core.cache import cache
from openai.types.chat import ChatCompletionMessageParam

from .backends import (
    TASK_FIELD,
    Attempt,
    BackendResult,
    LLMConfig,
    Message,
    ModelRequest,
    ms_since,
    task_field,
)
from .context import MESSAGE_OVERHEAD, MIN_REPLY, Fitted, prompt_fit
from .dialects import dialect_from_models, ladder_for, refuses_format, request_options
from .errors import ModelCallFailed, ModelOutputInvalid, ModelRequestRejected, ModelUnavailable
from .replies import OutputInvalid, parse_reply
from .slots import server_slot
from .tasks import Inputs, PromptTask, output_token_limit
from .tokens import count_message_tokens, count_tokens

_RETRYABLE_STATUS = frozenset({408, 409, 429})
_PROBE_TIMEOUT = 5.0
_REMEMBERED = 24 * 3600  # seconds a server's rung (per dialect) is remembered across processes


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
        self._rungs: tuple[str, ...] | None = None
        self._dialect = config.dialect
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(config.concurrency) if config.concurrency else None
        self._jitter = random.Random()
        self._server_key = f"llm-server:{config.base_url}:{config.model}"
        self._root = re.sub(r"/v1/?$", "", config.base_url.rstrip("/"))
        self._window: int | None = None
        self._ratio: float | None = None

    # --- the server's dialect and rung ------------------------------------------------

    def rungs(self) -> tuple[str, ...]:
        """The request formats still to try for this server, best first (found once): its
        dialect's ladder from where any process last stepped down under that dialect."""
        with self._lock:
            if self._rungs is None:
                dialect = self.config.dialect
                if dialect == "auto":
                    dialect = self._probe()
                start = cache.get(self._rung_key(dialect)) or self.config.response_format
                if self.config.response_format != "json_schema":
                    start = self.config.response_format  # a rung set by hand wins
                self._rungs = ladder_for(dialect, start)
                self._dialect = dialect
            return self._rungs

    def _rung_key(self, dialect: str) -> str:
        """A step down is the server's answer to one dialect's request (a test that tells a
        llama-cpp-python server it is OpenAI's must not cost its real dialect the grammar)."""
        return f"{self._server_key}:{dialect}"

    def _probe(self) -> str:
        """The dialect from `GET /models` (`owned_by`); `openai` when the server will not say."""
        try:
            listed = self._client.with_options(timeout=_PROBE_TIMEOUT).models.list()
            return dialect_from_models([m.model_dump() for m in listed.data])
        except openai.APIError:
            return "openai"

    def _step_down(self, rung: str) -> str | None:
        with self._lock:
            rungs = self._rungs or (rung,)
            below = rungs[rungs.index(rung) + 1 :] if rung in rungs else ()
            if not below:
                return None
            self._rungs = below
        cache.set(self._rung_key(self._dialect), below[0], _REMEMBERED)
        return below[0]

    # --- the context window -------------------------------------------------------------

    def fit(self, task: PromptTask[Any], inputs: Inputs) -> Fitted:
        """The prompt for `inputs`, trimmed to the server's context window."""
        window = self.config.context_tokens or self._server_window()
        return prompt_fit(task=task, inputs=inputs, context_tokens=window, count=self._count)

    def _server_window(self) -> int:
        """The context window the server reports (llama-server's /props), once; 0 if none."""
        if self._window is None:
            props = _get_json(f"{self._root}/props") or {}
            generation = props.get("default_generation_settings") or {}
            self._window = int(generation.get("n_ctx") or props.get("n_ctx") or 0)
        return self._window

    def _room(self, messages: list[Message]) -> int:
        """Tokens left for the reply after `messages` in the context window (plenty when
        the window is not known)."""
        window = self.config.context_tokens or self._server_window()
        if not window:
            return sys.maxsize
        text = "\n".join(m["content"] for m in messages)
        return window - self._count(text) - MESSAGE_OVERHEAD * len(messages)

    def _count(self, text: str) -> int:
        """Tokens of `text` as the server counts them: our count scaled by the ratio of the
        server's tokenizer (llama-cpp-python's /extras/tokenize) to ours, measured once on
        the first prompt, with 5% to spare."""
        ours = count_tokens(text)
        if self._ratio is None:
            tokens = _post_json(f"{self._root}/extras/tokenize", {"input": text})
            server = len(tokens.get("tokens", [])) if tokens else 0
            self._ratio = server / ours if server and ours else 1.0
        return math.ceil(ours * self._ratio * 1.05)

    # --- one call ---------------------------------------------------------------------

    def complete(self, request: ModelRequest) -> BackendResult:
        messages: list[Message] = list(request.messages)
        attempts: list[Attempt] = []
        usage: dict[str, int] = {}
        retries = reasks = 0
        fmt = self.rungs()[0]
        raw = ""
        schema = request.task.output_schema
        max_tokens = request.max_tokens or output_token_limit(request.task)
        while True:
            attempt = Attempt(outcome="ok", response_format=fmt)
            attempts.append(attempt)
            started = time.monotonic()
            try:
                with self._slot(request.priority):
                    completion = self._client.chat.completions.create(
                        model=self.model,
                        messages=cast(list[ChatCompletionMessageParam], messages),
                        seed=request.seed % 2**31,
                        max_tokens=max_tokens,
                        **self._options(fmt, request, schema),
                    )
            except openai.APIError as exc:
                attempt.latency_ms = ms_since(started)
                attempt.outcome, attempt.error = _describe(exc)
                if fmt != "text" and refuses_format(_status(exc), attempt.error):
                    lower = self._step_down(fmt)
                    if lower is not None:
                        attempt.outcome, fmt = "format_unsupported", lower
                        continue
                if attempt.outcome == "rejected":
                    # Refused on a re-ask, the output stayed invalid: the task's fail-safe.
                    kind = ModelOutputInvalid if reasks else ModelRequestRejected
                    return _failed(kind, request, attempts, raw, usage)
                if retries >= self.config.max_retries:
                    return _failed(ModelUnavailable, request, attempts, raw, usage)
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
            attempt.latency_ms = ms_since(started)
            raw = (completion.choices[0].message.content or "") if completion.choices else ""
            attempt.reply = raw
            reported = completion.usage
            attempt.prompt_tokens = getattr(reported, "prompt_tokens", None) or (
                count_message_tokens(messages)
            )
            attempt.completion_tokens = getattr(reported, "completion_tokens", None) or (
                count_tokens(raw)
            )
            _add_usage(usage, reported)
            try:
                output = request.task.repaired(
                    request.inputs, parse_reply(raw, request.task.output)
                )
                problem = request.task.problem_with(request.inputs, output)
                if problem:
                    raise OutputInvalid(problem)
            except OutputInvalid as exc:
                attempt.outcome, attempt.error = "invalid_output", str(exc)
                if reasks >= self.config.max_reasks:
                    return _failed(ModelOutputInvalid, request, attempts, raw, usage)
                reasks += 1
                reask: Message = {"role": "user", "content": _reask(str(exc), request.task)}
                candidates = (
                    [*messages, {"role": "assistant", "content": raw}, reask],
                    # A long wrong reply may not fit the window again: ask without it.
                    [*request.messages, reask],
                )
                fitting = [(c, room) for c in candidates if (room := self._room(c)) >= MIN_REPLY]
                if not fitting:
                    return _failed(ModelOutputInvalid, request, attempts, raw, usage)
                messages, room = fitting[0]
                max_tokens = min(max_tokens, room)
                continue
            return BackendResult(output=output, raw_reply=raw, attempts=attempts, usage=usage)

    def _options(self, rung: str, request: ModelRequest, schema: dict[str, Any]) -> dict[str, Any]:
        """The rung's request options, the task for the policy server when it is sent, and
        the call's priority when the server orders its queue by it."""
        options = request_options(rung, name=request.task.name, schema=schema)
        extra = dict(options.get("extra_body", {}))
        if self.config.send_task:
            extra[TASK_FIELD] = task_field(request)
        if self.config.priority:
            extra["priority"] = request.priority
        if self.config.temperature is not None:
            options = {**options, "temperature": self.config.temperature}
        return {**options, "extra_body": extra} if extra else options

    @contextmanager
    def _slot(self, priority: int) -> Iterator[None]:
        """This process's limit, then the server's slots shared by every process."""
        with self._slots or nullcontext(), self._server_slot(priority):
            yield

    def _server_slot(self, priority: int) -> AbstractContextManager[None]:
        if not self.config.server_slots:
            return nullcontext()
        return server_slot(
            self._server_key,
            slots=self.config.server_slots,
            priority=priority,
            lease=self.config.timeout + 10,
        )


def _failed(
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


def _reask(error: str, task: PromptTask[Any]) -> str:
    schema = json.dumps(task.output_schema, separators=(",", ":"))
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


def _get_json(url: str) -> dict[str, Any] | None:
    return _request_json(urllib.request.Request(url))


def _post_json(url: str, body: dict[str, Any]) -> dict[str, Any] | None:
    data = json.dumps(body).encode()
    headers = {"Content-Type": "application/json"}
    return _request_json(urllib.request.Request(url, data=data, headers=headers))


def _request_json(request: urllib.request.Request) -> dict[str, Any] | None:
    """A server extra's JSON answer, or None where the server has no such extra."""
    if not request.full_url.startswith(("http://", "https://")):
        return None
    try:
        with urllib.request.urlopen(request, timeout=_PROBE_TIMEOUT) as response:
            answer = json.loads(response.read())
    except (OSError, ValueError):
        return None
    return answer if isinstance(answer, dict) else None
