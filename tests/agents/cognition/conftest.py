"""Fixtures of the social-loop tests: the `openai` backend against the prompt-reading server."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.model_server import FromPrompt, ModelServer

from .prompt_rules import answer


@pytest.fixture
def prompt_server(settings: Any) -> Iterator[ModelServer]:
    """The `openai` backend, every call over HTTP to a local server that answers each
    prompt from its text alone (tests/agents/cognition/prompt_rules.py)."""
    server = ModelServer(FromPrompt(answer))
    settings.SMALLVILLE_LLM_BACKEND = "openai"
    settings.SMALLVILLE_LLM_BASE_URL = server.base_url
    settings.SMALLVILLE_LLM_API_KEY = "test-key"
    settings.SMALLVILLE_LLM_MODEL = "prompt-reader"
    settings.SMALLVILLE_LLM_TIMEOUT = 10
    settings.SMALLVILLE_LLM_MAX_RETRIES = 0
    settings.SMALLVILLE_LLM_MAX_REASKS = 0
    settings.SMALLVILLE_LLM_RESPONSE_FORMAT = "json_schema"
    settings.SMALLVILLE_LLM_CONCURRENCY = 0
    settings.SMALLVILLE_AGENT_THREADS = 1  # no pool threads holding test database sessions
    yield server
    server.close()
