"""Calls made together (llm/together.py): offline they run one after another, in order."""

from __future__ import annotations

from typing import Any

import pytest

from llm.together import together


def test_offline_calls_return_in_the_callers_order(settings: Any) -> None:
    settings.SMALLVILLE_LLM_BACKEND = "offline"
    made: list[str] = []

    def call(name: str) -> Any:
        def made_call() -> str:
            made.append(name)
            return name.upper()

        return made_call

    assert together(call("kiln"), call("loom"), call("quern")) == ["KILN", "LOOM", "QUERN"]
    assert made == ["kiln", "loom", "quern"]


def test_a_failing_call_raises(settings: Any) -> None:
    settings.SMALLVILLE_LLM_BACKEND = "offline"

    def broken() -> None:
        raise LookupError("no loom")

    with pytest.raises(LookupError, match="no loom"):
        together(lambda: 1, broken)
