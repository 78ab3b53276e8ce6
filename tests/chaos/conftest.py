"""Fixtures of the chaos tests: the model server, this process's settings for it (the
undisturbed twins run here, inline), and the workers' Redis."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from .harness import RECOVERIES
from .model_server import ModelServer
from .processes import PrivateRedis


@pytest.fixture(scope="session")
def model_server() -> Iterator[ModelServer]:
    server = ModelServer()
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
def server(settings: Any, model_server: ModelServer) -> Iterator[ModelServer]:
    """The model server, answering at once, with this process's model settings on it."""
    for name, value in model_server.settings().items():
        setattr(settings, name, value)
    settings.SMALLVILLE_AGENT_THREADS = 1  # no pool threads holding test database sessions
    model_server.slow(0)
    yield model_server
    model_server.slow(0)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if RECOVERIES:
        terminalreporter.section("chaos: recovery after the dependency's return")
        for scenario, seconds in RECOVERIES:
            terminalreporter.line(f"{scenario}: {seconds:.1f} s")
