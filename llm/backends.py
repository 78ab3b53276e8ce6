"""The backends behind the port: `offline` (rules, the default) and `openai` (any server,
`llm/openai_backend.py`), their settings, and the shapes of a request and its result.

Both take the same rendered messages and report attempts the same way, so the ledger
compares them call for call: the offline backend counts tokens with `llm.tokens`, the
openai backend records the server's own counts when it reports them.
"""

from __future__ import annotations

import os
import time
from dataclasses import asdict, dataclass, field, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Protocol

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from pydantic import BaseModel, ValidationError

from .context import Fitted, prompt_fit
from .dialects import DIALECTS
from .errors import ModelCallFailed, ModelOutputInvalid, ProfileUnusable
from .replies import OutputInvalid as OutputInvalid
from .replies import parse_reply as parse_reply
from .tasks import Inputs, PromptTask
from .tokens import count_message_tokens, count_tokens

if TYPE_CHECKING:
    from .models import ModelProfile

Message = dict[str, str]
RESPONSE_FORMATS = ("json_schema", "json_object", "text")
OFFLINE_MODEL = "offline-rules-v1"
# The request body's field that carries a call's task, inputs and seed to the policy
# server (llm/policy_server.py). A field of our own rather than OpenAI's `metadata`, whose
# values are strings of at most 512 characters.
TASK_FIELD = "smallville"
_LOGGED_REPLY_CHARS = 2000


@dataclass(frozen=True)
class LLMConfig:
    """The SMALLVILLE_LLM_* settings, read per call so tests can override them."""

    backend: str
    base_url: str
    api_key: str = field(repr=False)  # never in a log line or an error
    model: str
    timeout: float
    max_retries: int
    max_reasks: int
    concurrency: int
    response_format: str
    backoff_base: float
    backoff_max: float
    dialect: str = "auto"
    context_tokens: int = 0
    send_task: bool = False  # the task, inputs and seed go with each request (`TASK_FIELD`)
    priority: bool = False  # each request carries its `priority` (vLLM's field)
    server_slots: int = 0  # requests in flight to the server across every process (0: any)
    temperature: float | None = None  # None: the server's default

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
            dialect=settings.SMALLVILLE_LLM_DIALECT,
            context_tokens=settings.SMALLVILLE_LLM_CONTEXT_TOKENS,
            send_task=settings.SMALLVILLE_LLM_SEND_TASK,
            priority=settings.SMALLVILLE_LLM_PRIORITY,
            server_slots=settings.SMALLVILLE_LLM_SERVER_SLOTS,
        )
        if config.response_format not in RESPONSE_FORMATS:
            raise ImproperlyConfigured(
                f"SMALLVILLE_LLM_RESPONSE_FORMAT must be one of {', '.join(RESPONSE_FORMATS)}"
            )
        if config.dialect not in ("auto", *DIALECTS):
            raise ImproperlyConfigured(
                f"SMALLVILLE_LLM_DIALECT must be auto or one of {', '.join(DIALECTS)}"
            )
        return config

    def for_profile(self, profile: ModelProfile) -> LLMConfig:
        """These settings with a model profile's server, model, key and manner of asking.

        Raises ProfileUnusable when the profile's key variable is not set in this process.
        """
        key = ""
        if profile.api_key_env:
            key = os.environ.get(profile.api_key_env, "")
            if not key:
                raise ProfileUnusable(
                    f"model profile {profile.name!r}: the environment variable "
                    f"{profile.api_key_env} that holds its key is not set",
                    task="",
                    attempts=0,
                )
        return replace(
            self,
            backend=profile.backend,
            base_url=profile.base_url,
            api_key=key,
            model=profile.model or self.model,
            dialect=profile.dialect,
            context_tokens=profile.context_tokens,
            send_task=profile.send_task,
            priority=profile.priority,
            server_slots=profile.server_slots,
            temperature=profile.temperature,
        )


@dataclass(frozen=True)
class ModelRequest:
    task: PromptTask[Any]
    inputs: Inputs
    messages: tuple[Message, ...]
    seed: int
    max_tokens: int = 0  # the reply's token limit; 0: the task's own (`output_token_limit`)
    priority: int = 0  # `CallPriority`: 0 on a resident's critical path, 1 background


def task_field(request: ModelRequest) -> dict[str, Any]:
    """What the policy server needs to answer `request` as the offline backend would."""
    return {
        "task": request.task.name,
        "inputs": {name: _plain(value) for name, value in request.inputs.items()},
        "seed": request.seed,
    }


def _plain(value: object) -> object:
    """`value` as JSON keeps it: the inputs are text, numbers and lists of them."""
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise TypeError(f"a prompt input of type {type(value).__name__} cannot be sent as JSON")


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
    fallback: bool = False  # the output is the task's fail-safe answer, not the model's


class Backend(Protocol):
    name: str
    model: str

    def fit(self, task: PromptTask[Any], inputs: Inputs) -> Fitted: ...

    def complete(self, request: ModelRequest) -> BackendResult: ...


def backend_get(config: LLMConfig | None = None) -> Backend:
    """The backend for the current settings; one instance per configuration and process."""
    return _backend_for(config or LLMConfig.from_settings())


def backend_is_remote() -> bool:
    """Whether the configured backend answers over the network, so calls are worth making
    ahead or at once (the offline one answers in microseconds)."""
    return backend_get().name != "offline"


@lru_cache(maxsize=32)
def _backend_for(config: LLMConfig) -> Backend:
    if config.backend == "offline":
        return OfflineBackend()
    if config.backend == "openai":
        from .openai_backend import OpenAIBackend  # the client only where it is used

        return OpenAIBackend(config)
    raise ImproperlyConfigured(
        f"SMALLVILLE_LLM_BACKEND={config.backend!r}: expected 'offline' or 'openai'"
    )


class OfflineBackend:
    """Deterministic, seeded rules per task: a stand-in for demos and tests, not a model."""

    name = "offline"
    model = OFFLINE_MODEL

    def fit(self, task: PromptTask[Any], inputs: Inputs) -> Fitted:
        """The prompt as it is: the offline rules have no context window."""
        return prompt_fit(task=task, inputs=inputs, context_tokens=0, count=count_tokens)

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
                outcome="invalid_output", latency_ms=ms_since(started), error=str(exc)[:2000]
            )
            return BackendResult(output=None, raw_reply="", attempts=[attempt], failure=failure)
        raw = output.model_dump_json()
        attempt = Attempt(
            outcome="ok",
            latency_ms=ms_since(started),
            prompt_tokens=count_message_tokens(request.messages),
            completion_tokens=count_tokens(raw),
            reply=raw,
        )
        return BackendResult(output=output, raw_reply=raw, attempts=[attempt])


def ms_since(started: float) -> int:
    return round((time.monotonic() - started) * 1000)


def message_list(prompt: str) -> tuple[Message, ...]:
    """The chat messages for a rendered prompt: one user message, the same for all backends."""
    return ({"role": "user", "content": prompt},)
