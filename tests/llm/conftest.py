"""Fixtures of the language-model tests: a scripted OpenAI-compatible server, a simulation."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User

from tests.factories import unseeded_simulation
from tests.model_server import ModelServer
from world.models import Simulation


@pytest.fixture
def openai_llm(settings: Any, model_server: ModelServer) -> ModelServer:
    """The `openai` backend pointed at the fake server, with short timeouts and backoff."""
    settings.SMALLVILLE_LLM_BACKEND = "openai"
    settings.SMALLVILLE_LLM_BASE_URL = model_server.base_url
    settings.SMALLVILLE_LLM_API_KEY = "test-key"
    settings.SMALLVILLE_LLM_MODEL = "fake-model"
    settings.SMALLVILLE_LLM_TIMEOUT = 0.5
    settings.SMALLVILLE_LLM_MAX_RETRIES = 4
    settings.SMALLVILLE_LLM_MAX_REASKS = 2
    settings.SMALLVILLE_LLM_RESPONSE_FORMAT = "json_schema"
    settings.SMALLVILLE_LLM_BACKOFF_BASE = 0.01
    settings.SMALLVILLE_LLM_BACKOFF_MAX = 0.05
    settings.SMALLVILLE_LLM_CONCURRENCY = 0
    return model_server


@pytest.fixture
def simulation(user: User, monkeypatch: pytest.MonkeyPatch) -> Simulation:
    """Three residents, no model call yet: the ledger and the budget start at zero."""
    return unseeded_simulation(user, monkeypatch)
