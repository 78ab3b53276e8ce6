"""A real webhook receiver for each test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.integration.webhooks.receiver import Receiver


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    server = Receiver()
    yield server
    server.close()
