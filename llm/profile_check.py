"""A model profile's `check`: one tiny real call, outside any simulation and its ledger,
that says whether the server answers, in which dialect, with structured output, and how
fast. It neither retries nor re-asks, so an unreachable server fails in one timeout."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, replace
from typing import Any

from .backends import LLMConfig, ModelRequest, backend_get, message_list, ms_since
from .errors import ProfileUnusable
from .models import ModelProfile
from .tasks import task_get

TASK = "importance"  # what every simulation asks first (agents/tasks/importance/)

# Response formats in which the server itself held the reply to the schema.
STRUCTURED = ("json_schema", "json_object_schema", "json_schema_grammar", "guided_json")
CHECK_TIMEOUT = 15.0  # seconds: at most, for the one request of a check
_INPUTS = {
    "agent_name": "Test Resident",
    "agent_identity": "Name: Test Resident",
    "memory": "Test Resident watered a plant",
}


@dataclass(frozen=True)
class ProfileCheck:
    ok: bool
    reachable: bool
    dialect: str
    structured_output: bool
    latency_ms: int
    model: str
    message: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def profile_check(*, profile: ModelProfile) -> ProfileCheck:
    """Ask the profile's model to rate one made-up memory and report how that went."""
    started = time.monotonic()
    base = LLMConfig.from_settings()
    try:
        config = base.for_profile(profile)
    except ProfileUnusable as exc:
        return ProfileCheck(False, False, "", False, 0, profile.model, str(exc))
    config = replace(
        config, max_retries=0, max_reasks=0, timeout=min(config.timeout, CHECK_TIMEOUT)
    )
    backend = backend_get(config)
    importance = task_get(TASK)
    fitted = backend.fit(importance, _INPUTS)
    request = ModelRequest(
        task=importance,
        inputs=fitted.inputs,
        messages=message_list(fitted.prompt),
        seed=0,
        max_tokens=fitted.max_tokens,
    )
    result = backend.complete(request)
    latency = ms_since(started)
    dialect = str(getattr(backend, "_dialect", "")) if backend.name != "offline" else "offline"
    last = result.attempts[-1]
    reachable = any(a.outcome not in ("connection_error", "timeout") for a in result.attempts)
    if result.output is None:
        failure = str(result.failure) if result.failure else last.error
        reason = last.error if last.error and last.error not in failure else ""
        message = f"{profile.base_url or 'the server'}: {failure} {reason}".strip()
        if not reachable:
            message = f"unreachable: {message}"
        if config.api_key:  # a server may echo the key it refused
            message = message.replace(config.api_key, "[key]")
        return ProfileCheck(False, reachable, dialect, False, latency, backend.model, message)
    structured = backend.name == "offline" or last.response_format in STRUCTURED
    return ProfileCheck(True, True, dialect, structured, latency, backend.model, "answered")
