"""The real local model: llama-cpp-python's server with the bundled SmolLM2-135M-Instruct
(`make install-local`), started once for these tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from llm.local import LocalModelServer
from tests import parallel


@pytest.fixture(scope="session")
def local_model(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalModelServer]:
    log = Path(tmp_path_factory.mktemp("local_model")) / "server.log"
    # One thread beside the other workers of a parallel run: llama.cpp's threads wait for
    # each other spinning, as OpenBLAS's do (tests/parallel.py); with two, the server took
    # 12.5 minutes of CPU for the sim hour of test_town.py beside two other workers.
    threads = 1 if parallel.is_worker() else None
    with LocalModelServer(log=log, threads=threads) as server:
        yield server


@pytest.fixture
def on_local_model(settings: Any, local_model: LocalModelServer) -> LocalModelServer:
    """This process's `openai` backend pointed at the local server, dialect found by probe."""
    for key, value in local_model.settings().items():
        setattr(settings, key, value)
    settings.SMALLVILLE_LLM_DIALECT = "auto"
    settings.SMALLVILLE_LLM_BACKOFF_BASE = 0.05
    return local_model
