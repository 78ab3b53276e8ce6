"""Fixtures of the chaos tests: the model server (the offline policy's answers, slowed at
will: tests/model_server.py), this process's settings for it (the undisturbed twins run
here, inline), and the workers' Redis."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.model_server import ModelServer, policy_answers

from .harness import FIGURES, RECOVERIES, model_settings
from .processes import PrivateRedis


@pytest.fixture(scope="session")
def policy_model() -> Iterator[ModelServer]:
    server = ModelServer(policy_answers, embedding_dimensions=384)
    yield server
    server.close()


@pytest.fixture(scope="session")
def redis() -> Iterator[PrivateRedis]:
    """The workers' broker and cache: a Redis of this run's own, so that no other worker on
    a shared Redis (the test suite's run with a 3 s visibility timeout) redelivers what a
    killed worker held: recovery here is the watchdog's alone."""
    redis = PrivateRedis()
    redis.start()
    yield redis
    redis.stop()


@pytest.fixture
def server(settings: Any, policy_model: ModelServer) -> Iterator[ModelServer]:
    """The model server, answering at once, with this process's model settings on it."""
    for name, value in model_settings(policy_model).items():
        setattr(settings, name, value)
    settings.SMALLVILLE_LLM_SEND_TASK = True
    settings.SMALLVILLE_AGENT_THREADS = 1  # no pool threads holding test database sessions
    policy_model.reset()
    yield policy_model
    policy_model.reset()


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if RECOVERIES:
        terminalreporter.section("chaos: recovery after the dependency's return")
        for scenario, seconds in RECOVERIES:
            terminalreporter.line(f"{scenario}: {seconds:.1f} s")
    if FIGURES:
        terminalreporter.section("chaos: figures")
        for what, value in FIGURES:
            terminalreporter.line(f"{what}: {value}")
